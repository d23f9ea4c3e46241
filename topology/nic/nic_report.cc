// Text and warnings for `xttcp topology` (see nic_report.hh).
#include "topology/nic/nic_report.hh"

#include <algorithm>
#include <set>

#include <fmt/format.h>

namespace xttcp {
namespace {

template <class T>
std::string or_reason(const Expected<T>& value, std::string (*show)(const T&)) {
  return value ? show(*value) : value.error().message;
}

std::string cpus_text(const std::vector<int>& cpus) {
  return cpus.empty() ? "none" : format_cpu_list(cpus);
}

std::string int_text(const int& value) { return std::to_string(value); }

// The CPUs an IRQ is delivered to: the effective affinity when the kernel gives it.
std::vector<int> delivery_cpus(const NicIrq& irq) {
  if (irq.effective_affinity && !irq.effective_affinity->empty()) return *irq.effective_affinity;
  if (irq.affinity) return *irq.affinity;
  return {};
}

const CpuInfo* cpu_info(const Topology& topology, int cpu) {
  for (const CpuInfo& info : topology.cpus) {
    if (info.os_index == cpu) return &info;
  }
  return nullptr;
}

// "core 3 node 1" for one CPU, "cores 0-1 nodes 0" for several; "-" for CPUs we may not use.
std::string placement_text(const Topology& topology, const std::vector<int>& cpus) {
  std::set<int> cores, nodes;
  for (int cpu : cpus) {
    if (const CpuInfo* info = cpu_info(topology, cpu)) {
      cores.insert(info->core);
      nodes.insert(info->numa_node);
    }
  }
  if (cores.empty()) return "-";
  return fmt::format("{}/{}", format_cpu_list({cores.begin(), cores.end()}),
                     format_cpu_list({nodes.begin(), nodes.end()}));
}

int core_count(const Topology& topology) {
  std::set<int> cores;
  for (const CpuInfo& cpu : topology.cpus) cores.insert(cpu.core);
  return static_cast<int>(cores.size());
}

std::string size_text(long long bytes) {
  return bytes >= (1LL << 20) ? fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1 << 20))
                              : fmt::format("{} KiB", bytes / 1024);
}

void buffer_warning(std::vector<std::string>& out, const std::string& nic, const char* setting,
                    const Expected<long long>& value, long long bdp, int speed_mbps) {
  if (!value || *value >= bdp) return;
  out.push_back(fmt::format(
      "{} is {}, below the bandwidth-delay product of {} ({} Mb/s x {} ms RTT = {}): one "
      "connection cannot fill the link; raise it to at least {}",
      setting, size_text(*value), nic, speed_mbps, kWarningRttMs, size_text(bdp), bdp));
}

}  // namespace

int rx_queue_count(const NicInfo& nic) {
  if (nic.irqs) {
    int queues = 0;
    for (const NicIrq& irq : *nic.irqs)
      queues += irq.kind == QueueKind::rx || irq.kind == QueueKind::combined;
    if (queues > 0) return queues;
  }
  if (nic.channels && nic.channels->rx + nic.channels->combined > 0)
    return static_cast<int>(nic.channels->rx + nic.channels->combined);
  return static_cast<int>(
      std::count_if(nic.steering.begin(), nic.steering.end(),
                    [](const NicQueueSteering& q) { return q.kind == QueueKind::rx; }));
}

Expected<NicPlacementFacts> placement_facts(const NicInfo& nic) {
  if (!nic.irqs) return fail(fmt::format("{} queue IRQs: {}", nic.name, nic.irqs.error().message));
  NicPlacementFacts facts;
  facts.nic = nic.name;
  facts.numa_node = nic.numa_node ? *nic.numa_node : -1;
  for (const NicIrq& irq : *nic.irqs) {  // sorted rx, tx, combined: by queue within each kind
    if (irq.kind == QueueKind::rx || irq.kind == QueueKind::combined)
      facts.rx_queue_cpus.push_back(delivery_cpus(irq));
  }
  return facts;
}

std::vector<std::string> nic_warnings(const NicInfo& nic, const Topology& topology,
                                      const TuningFacts& facts) {
  std::vector<std::string> out;
  const std::string& name = nic.name;
  if (nic.irqs) {
    std::set<int> cpus;
    int queue_irqs = 0;
    for (const NicIrq& irq : *nic.irqs) {
      if (irq.kind == QueueKind::other) continue;
      ++queue_irqs;
      for (int cpu : delivery_cpus(irq)) cpus.insert(cpu);
    }
    if (queue_irqs > 1 && cpus.size() == 1)
      out.push_back(fmt::format(
          "all {} queue IRQs of {} land on CPU {}: one CPU takes every packet's interrupt; "
          "spread them over cores (/proc/irq/N/smp_affinity_list)",
          queue_irqs, name, *cpus.begin()));
  }
  std::vector<int> nodes = numa_nodes(topology);
  if (nic.numa_node && *nic.numa_node >= 0 && nodes.size() > 1) {
    std::vector<int> remote;
    for (int node : nodes) {
      if (node != *nic.numa_node) remote.push_back(node);
    }
    out.push_back(fmt::format(
        "{} is on NUMA node {}: workers on node(s) {} reach it across the interconnect; keep "
        "receivers on node {}",
        name, *nic.numa_node, format_cpu_list(remote), *nic.numa_node));
  }
  const int rx_queues = rx_queue_count(nic);
  const int cores = core_count(topology);
  // Only where queues take interrupts (a NIC, not lo or a veth).
  if ((nic.irqs || nic.channels) && rx_queues > 0 && rx_queues < cores) {
    std::string raise;
    if (nic.channels && nic.channels->max_combined > static_cast<std::uint32_t>(rx_queues))
      raise = fmt::format(" (the driver allows {} combined channels)", nic.channels->max_combined);
    out.push_back(fmt::format(
        "{} has {} RX queue(s) for {} cores: receive interrupts use at most {} core(s){}", name,
        rx_queues, cores, rx_queues, raise));
  }
  if (rx_queues > 1) {
    for (const NicQueueSteering& queue : nic.steering) {
      if (queue.kind == QueueKind::rx && queue.cpus && !queue.cpus->empty()) {
        out.push_back(fmt::format(
            "RPS is on for {} rx-{} (CPUs {}) on top of {} RSS queues: packets are handled "
            "twice on two CPUs; clear rps_cpus",
            name, queue.queue, format_cpu_list(*queue.cpus), rx_queues));
        break;
      }
    }
  }
  if (facts.irqbalance_running && *facts.irqbalance_running)
    out.push_back(
        "irqbalance is running: it moves queue IRQs while a test runs, so the CPU "
        "that takes a flow's interrupt can change under it");
  if (nic.speed_mbps && *nic.speed_mbps > 0) {
    const long long bdp = static_cast<long long>(static_cast<double>(*nic.speed_mbps) * 1e6 / 8 *
                                                 kWarningRttMs / 1000.0);
    buffer_warning(out, name, "net.core.rmem_max", facts.rmem_max, bdp, *nic.speed_mbps);
    buffer_warning(out, name, "net.core.wmem_max", facts.wmem_max, bdp, *nic.speed_mbps);
    buffer_warning(out, name, "net.ipv4.tcp_rmem (max)", facts.tcp_rmem_max, bdp, *nic.speed_mbps);
    buffer_warning(out, name, "net.ipv4.tcp_wmem (max)", facts.tcp_wmem_max, bdp, *nic.speed_mbps);
  }
  if (nic.mtu && nic.max_mtu && *nic.mtu < *nic.max_mtu && *nic.mtu < 9001)
    out.push_back(fmt::format(
        "{} MTU is {} and the NIC allows {}: larger frames cost fewer packets per byte where "
        "the path carries them",
        name, *nic.mtu, *nic.max_mtu));
  return out;
}

std::string describe_nic(const NicInfo& nic, const Topology& topology, const TuningFacts& facts) {
  std::string out = fmt::format("NIC {}\n", nic.name);
  if (nic.driver)
    out += fmt::format("  driver: {} {} (firmware {}, bus {})\n", nic.driver->name,
                       nic.driver->version.empty() ? "-" : nic.driver->version,
                       nic.driver->firmware.empty() ? "-" : nic.driver->firmware,
                       nic.driver->bus_info.empty() ? "-" : nic.driver->bus_info);
  else
    out += fmt::format("  driver: {}\n", nic.driver.error().message);
  out += fmt::format("  PCI: {}\n",
                     nic.pci_address ? *nic.pci_address : nic.pci_address.error().message);
  out += fmt::format("  NUMA node: {}; local CPUs: {}\n",
                     nic.numa_node ? (*nic.numa_node < 0 ? std::string("none (-1)")
                                                         : std::to_string(*nic.numa_node))
                                   : nic.numa_node.error().message,
                     or_reason<std::vector<int>>(nic.local_cpus, cpus_text));
  out += fmt::format(
      "  MTU: {} (max {}); speed: {}\n", or_reason<int>(nic.mtu, int_text),
      or_reason<int>(nic.max_mtu, int_text),
      nic.speed_mbps ? fmt::format("{} Mb/s", *nic.speed_mbps) : nic.speed_mbps.error().message);
  if (nic.channels) {
    const NicChannels& c = *nic.channels;
    out += fmt::format("  channels: rx {} tx {} combined {} other {} (max {} {} {} {})\n", c.rx,
                       c.tx, c.combined, c.other, c.max_rx, c.max_tx, c.max_combined, c.max_other);
  } else {
    out += fmt::format("  channels: {}\n", nic.channels.error().message);
  }
  if (nic.rings)
    out += fmt::format("  rings: rx {} tx {} (max {} {})\n", nic.rings->rx, nic.rings->tx,
                       nic.rings->max_rx, nic.rings->max_tx);
  else
    out += fmt::format("  rings: {}\n", nic.rings.error().message);
  if (nic.coalescing)
    out += fmt::format("  coalescing: rx {} us / {} frames{}, tx {} us / {} frames{}\n",
                       nic.coalescing->rx_usecs, nic.coalescing->rx_frames,
                       nic.coalescing->adaptive_rx ? " adaptive" : "", nic.coalescing->tx_usecs,
                       nic.coalescing->tx_frames, nic.coalescing->adaptive_tx ? " adaptive" : "");
  else
    out += fmt::format("  coalescing: {}\n", nic.coalescing.error().message);
  if (nic.rss) {
    std::set<std::uint32_t> queues(nic.rss->indirection.begin(), nic.rss->indirection.end());
    out += fmt::format("  RSS: {} entries over {} queue(s), {}-byte key, hash function {:#x}\n",
                       nic.rss->indirection.size(), queues.size(), nic.rss->key.size(),
                       nic.rss->hash_function);
  } else {
    out += fmt::format("  RSS: {}\n", nic.rss.error().message);
  }
  for (const NicHashFields& fields : nic.hash_fields)
    out += fmt::format("  hashed {}: {}\n", fields.flow_type,
                       fields.fields ? *fields.fields : fields.fields.error().message);
  if (nic.irqs) {
    out += fmt::format("  {:<11} {:>5}  {:<12} {:<12} {:<10} {}\n", "queue", "IRQ", "affinity",
                       "effective", "core/node", "name");
    for (const NicIrq& irq : *nic.irqs) {
      const std::string queue = irq.queue >= 0
                                    ? fmt::format("{}{}", queue_kind_name(irq.kind), irq.queue)
                                    : queue_kind_name(irq.kind);
      out += fmt::format(
          "  {:<11} {:>5}  {:<12} {:<12} {:<10} {}\n", queue, irq.irq,
          irq.affinity ? cpus_text(*irq.affinity) : std::string("?"),
          irq.effective_affinity ? cpus_text(*irq.effective_affinity) : std::string("?"),
          placement_text(topology, delivery_cpus(irq)), irq.name);
    }
  } else {
    out += fmt::format("  queue IRQs: {}\n", nic.irqs.error().message);
  }
  for (const NicQueueSteering& queue : nic.steering)
    out += fmt::format(
        "  {} {}-{}: {}\n", queue.kind == QueueKind::rx ? "RPS" : "XPS",
        queue_kind_name(queue.kind), queue.queue,
        queue.cpus ? (queue.cpus->empty() ? std::string("off") : format_cpu_list(*queue.cpus))
                   : queue.cpus.error().message);
  if (nic.queue_counters) {
    auto figure = [](const std::optional<std::uint64_t>& v) {
      return v ? std::to_string(*v) : std::string("-");
    };
    out += fmt::format("  queue counters since boot ({}):\n",
                       queue_stats_source_name(nic.queue_counters->source));
    out += fmt::format("  {:<6} {:>14} {:>18} {:>14} {:>18}\n", "queue", "rx_packets", "rx_bytes",
                       "tx_packets", "tx_bytes");
    for (const auto& [queue, c] : nic.queue_counters->queues)
      out += fmt::format("  {:<6} {:>14} {:>18} {:>14} {:>18}\n", queue, figure(c.rx_packets),
                         figure(c.rx_bytes), figure(c.tx_packets), figure(c.tx_bytes));
  } else {
    out += fmt::format("  queue counters: {}\n", nic.queue_counters.error().message);
  }
  for (const std::string& warning : nic_warnings(nic, topology, facts))
    out += fmt::format("  WARNING: {}\n", warning);
  return out;
}

}  // namespace xttcp
