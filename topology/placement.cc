// Placement modes over the topology's CPUs (see placement.hh).
#include "topology/placement.hh"

#include <algorithm>
#include <set>

#include <fmt/format.h>

namespace xttcp {
namespace {

const CpuInfo* find_cpu(const Topology& topology, int cpu) {
  for (const CpuInfo& info : topology.cpus) {
    if (info.os_index == cpu) return &info;
  }
  return nullptr;
}

// The first CPU of `cpus` this process may use, or nullopt.
std::optional<int> first_allowed(const Topology& topology, const std::vector<int>& cpus) {
  for (int cpu : cpus) {
    if (find_cpu(topology, cpu) != nullptr) return cpu;
  }
  return std::nullopt;
}

// Another PU of the same core (the first in placement order), or nullopt without SMT.
std::optional<int> sibling_of(const Topology& topology, int cpu, const std::vector<int>& order) {
  const CpuInfo* info = find_cpu(topology, cpu);
  if (info == nullptr) return std::nullopt;
  for (int other : order) {
    const CpuInfo* o = find_cpu(topology, other);
    if (other != cpu && o != nullptr && o->core == info->core) return other;
  }
  return std::nullopt;
}

// `head` first (without repeats), then the rest of `order`: workers beyond the queues still run.
std::vector<int> head_then_rest(const std::vector<int>& head, const std::vector<int>& order) {
  std::vector<int> out;
  for (int cpu : head) {
    if (std::find(out.begin(), out.end(), cpu) == out.end()) out.push_back(cpu);
  }
  for (int cpu : order) {
    if (std::find(out.begin(), out.end(), cpu) == out.end()) out.push_back(cpu);
  }
  return out;
}

Placement fall_back(PlacementMode asked, std::vector<int> order, const std::string& reason) {
  return Placement{asked, PlacementMode::spread, std::move(order),
                   fmt::format("{} asked but {}: spread over every core instead",
                               placement_mode_name(asked), reason)};
}

}  // namespace

const char* placement_mode_name(PlacementMode mode) {
  switch (mode) {
    case PlacementMode::spread: return "spread";
    case PlacementMode::numa: return "numa";
    case PlacementMode::irq: return "irq";
    case PlacementMode::irq_sibling: return "irq-sibling";
    case PlacementMode::avoid_irq: return "avoid-irq";
  }
  return "spread";
}

Expected<PlacementMode> parse_placement_mode(std::string_view text) {
  for (PlacementMode mode : {PlacementMode::spread, PlacementMode::numa, PlacementMode::irq,
                             PlacementMode::irq_sibling, PlacementMode::avoid_irq}) {
    if (text == placement_mode_name(mode)) return mode;
  }
  return fail(fmt::format(
      "--placement: '{}' is not one of spread, numa, irq, irq-sibling, avoid-irq", text));
}

Placement place_workers(const Topology& topology, PlacementMode mode,
                        const Expected<NicPlacementFacts>& nic) {
  const std::vector<int> order = placement_order(topology);
  if (mode == PlacementMode::spread)
    return {mode, mode, order,
            "spread: one CPU per core, round-robin over NUMA nodes, then hyperthread siblings"};
  if (!nic) return fall_back(mode, order, nic.error().message);
  const NicPlacementFacts& facts = *nic;

  if (mode == PlacementMode::numa) {
    if (facts.numa_node < 0)
      return fall_back(mode, order, fmt::format("{} has no NUMA node", facts.nic));
    Expected<std::vector<int>> local = numa_node_cpus(topology, facts.numa_node);
    if (!local) return fall_back(mode, order, local.error().message);
    return {mode, mode, *local,
            fmt::format("numa: only CPUs {} of node {}, where {} is attached",
                        format_cpu_list(*local), facts.numa_node, facts.nic)};
  }

  // The CPU each RX queue's interrupt lands on, when this process may use it.
  std::vector<int> irq_cpus;
  std::set<int> all_irq_cpus;
  for (const std::vector<int>& cpus : facts.rx_queue_cpus) {
    for (int cpu : cpus) all_irq_cpus.insert(cpu);
    if (std::optional<int> cpu = first_allowed(topology, cpus)) irq_cpus.push_back(*cpu);
  }
  if (facts.rx_queue_cpus.empty())
    return fall_back(mode, order, fmt::format("{} has no RX queue interrupt known", facts.nic));

  if (mode == PlacementMode::irq) {
    if (irq_cpus.empty())
      return fall_back(mode, order, fmt::format("no RX interrupt CPU of {} is ours", facts.nic));
    return {mode, mode, head_then_rest(irq_cpus, order),
            fmt::format("irq: worker i on the CPU taking {} RX queue i's interrupt ({}), the "
                        "rest spread",
                        facts.nic, fmt::join(irq_cpus, ","))};
  }
  if (mode == PlacementMode::irq_sibling) {
    std::vector<int> siblings;
    for (int cpu : irq_cpus) {
      if (std::optional<int> sibling = sibling_of(topology, cpu, order))
        siblings.push_back(*sibling);
    }
    if (siblings.empty())
      return fall_back(
          mode, order,
          fmt::format("no RX interrupt CPU of {} has a hyperthread sibling of ours", facts.nic));
    return {mode, mode, head_then_rest(siblings, order),
            fmt::format("irq-sibling: worker i on the hyperthread sibling of the CPU taking {} "
                        "RX queue i's interrupt ({}), the rest spread",
                        facts.nic, fmt::join(siblings, ","))};
  }
  // avoid-irq: whole cores free of queue interrupts (a sibling shares the core's caches).
  std::set<int> irq_cores;
  for (int cpu : all_irq_cpus) {
    if (const CpuInfo* info = find_cpu(topology, cpu)) irq_cores.insert(info->core);
  }
  std::vector<int> quiet;
  for (int cpu : order) {
    if (!irq_cores.count(find_cpu(topology, cpu)->core)) quiet.push_back(cpu);
  }
  if (quiet.empty())
    return fall_back(mode, order, fmt::format("every core takes an RX interrupt of {}", facts.nic));
  return {mode, mode, quiet,
          fmt::format("avoid-irq: only CPUs {}, whose cores take no RX interrupt of {} (those "
                      "land on CPUs {})",
                      format_cpu_list(quiet), facts.nic,
                      format_cpu_list({all_irq_cpus.begin(), all_irq_cpus.end()}))};
}

}  // namespace xttcp
