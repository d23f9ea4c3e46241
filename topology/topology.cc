// Backend-free topology logic: placement order, cpulists, the `xttcp topology` text.
#include <algorithm>
#include <charconv>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "topology/topology.hh"

namespace xttcp {
namespace {
constexpr int max_cpu_number = (1 << 20) - 1;  // keeps a typo like 0-2000000000 from eating memory
}  // namespace

std::vector<int> placement_order(const Topology& topology) {
  // PUs of each physical core, lowest os_index first.
  std::map<std::pair<int, int>, std::vector<const CpuInfo*>> cores;  // (package, core) -> PUs
  for (const CpuInfo& cpu : topology.cpus) cores[{cpu.package, cpu.core}].push_back(&cpu);
  for (auto& [key, pus] : cores) {
    std::sort(pus.begin(), pus.end(),
              [](const CpuInfo* a, const CpuInfo* b) { return a->os_index < b->os_index; });
  }

  // Cores grouped by (NUMA node, package), each group in order of its cores' first PU.
  std::map<std::pair<int, int>, std::vector<const std::vector<const CpuInfo*>*>> domains;
  std::size_t threads_per_core = 0;
  for (const auto& [key, pus] : cores) {
    domains[{pus.front()->numa_node, pus.front()->package}].push_back(&pus);
    threads_per_core = std::max(threads_per_core, pus.size());
  }
  for (auto& [key, group] : domains) {
    std::sort(group.begin(), group.end(),
              [](auto* a, auto* b) { return a->front()->os_index < b->front()->os_index; });
  }

  // Rank 0 (one PU per core) round-robin over domains, then rank 1 (first siblings), ...
  std::vector<int> order;
  order.reserve(topology.cpus.size());
  for (std::size_t rank = 0; rank < threads_per_core; ++rank) {
    std::vector<std::vector<int>> per_domain;
    for (const auto& [key, group] : domains) {
      std::vector<int> pus;
      for (const auto* core : group) {
        if (core->size() > rank) pus.push_back((*core)[rank]->os_index);
      }
      per_domain.push_back(std::move(pus));
    }
    for (std::size_t i = 0;; ++i) {
      bool any = false;
      for (const auto& pus : per_domain) {
        if (i < pus.size()) {
          order.push_back(pus[i]);
          any = true;
        }
      }
      if (!any) break;
    }
  }
  return order;
}

std::vector<int> numa_nodes(const Topology& topology) {
  std::set<int> nodes;
  for (const CpuInfo& cpu : topology.cpus) nodes.insert(cpu.numa_node);
  return {nodes.begin(), nodes.end()};
}

Expected<std::vector<int>> numa_node_cpus(const Topology& topology, int node) {
  std::set<int> of_node;
  for (const CpuInfo& cpu : topology.cpus)
    if (cpu.numa_node == node) of_node.insert(cpu.os_index);
  if (of_node.empty())
    return fail(fmt::format("NUMA node {} has no CPU this process may use (nodes: {})", node,
                            fmt::join(numa_nodes(topology), ", ")));
  std::vector<int> cpus;
  for (int cpu : placement_order(topology))
    if (of_node.count(cpu) != 0) cpus.push_back(cpu);
  return cpus;
}

bool cpu_allowed(const Topology& topology, int cpu) {
  return std::any_of(topology.cpus.begin(), topology.cpus.end(),
                     [cpu](const CpuInfo& info) { return info.os_index == cpu; });
}

std::string describe_topology(const Topology& topology) {
  std::vector<int> allowed;
  std::set<int> packages, numa_nodes;
  std::map<std::pair<int, int>, int> threads;
  for (const CpuInfo& cpu : topology.cpus) {
    allowed.push_back(cpu.os_index);
    packages.insert(cpu.package);
    numa_nodes.insert(cpu.numa_node);
    ++threads[{cpu.package, cpu.core}];
  }
  int threads_per_core = 0;
  for (const auto& [key, count] : threads) threads_per_core = std::max(threads_per_core, count);

  std::string text = fmt::format("source: {}\n", topology.source);
  text += fmt::format("allowed cpus: {} ({})\n", format_cpu_list(allowed), allowed.size());
  text += fmt::format("packages: {}  numa nodes: {}  cores: {}  threads per core: {}\n",
                      packages.size(), numa_nodes.size(), threads.size(), threads_per_core);
  text += fmt::format("{:>5} {:>5} {:>8} {:>5}\n", "cpu", "core", "package", "numa");
  for (const CpuInfo& cpu : topology.cpus) {
    text += fmt::format("{:>5} {:>5} {:>8} {:>5}\n", cpu.os_index, cpu.core, cpu.package,
                        cpu.numa_node);
  }
  text += fmt::format("placement order: {}\n", fmt::join(placement_order(topology), ","));
  return text;
}

Expected<std::vector<int>> parse_cpu_list(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  std::set<int> cpus;
  auto number = [](std::string_view s, int& value) {
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    return ec == std::errc() && ptr == s.data() + s.size() && value >= 0;
  };
  while (!text.empty()) {
    std::size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    std::size_t dash = item.find('-');
    int first = 0, last = 0;
    bool valid = dash == std::string_view::npos
                     ? number(item, first) && number(item, last)
                     : number(item.substr(0, dash), first) && number(item.substr(dash + 1), last);
    if (!valid || last < first) {
      return fail(fmt::format("cpu list: '{}' is not a cpu number or range like 0-3", item));
    }
    if (last > max_cpu_number) {
      return fail(fmt::format("cpu list: cpu {} is above {}", last, max_cpu_number));
    }
    for (int cpu = first; cpu <= last; ++cpu) cpus.insert(cpu);
  }
  return std::vector<int>(cpus.begin(), cpus.end());
}

std::string format_cpu_list(std::vector<int> cpus) {
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  std::string text;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!text.empty()) text += ',';
    text += j == i ? fmt::format("{}", cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]);
    i = j + 1;
  }
  return text;
}

}  // namespace xttcp
