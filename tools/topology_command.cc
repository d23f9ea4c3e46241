// `xttcp topology` (see topology_command.hh): discovery in topology/, text in topology/nic/
// nic_report, the JSON form here.
#include "tools/topology_command.hh"

#include <cstdio>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "engine/report/result_file.hh"
#include "tools/run_command.hh"
#include "topology/nic/nic_discovery.hh"
#include "topology/nic/nic_report.hh"

namespace xttcp {
namespace {

using Json = nlohmann::ordered_json;

// A value, or {"not_available": "<reason>"} for what the machine did not give.
template <class T, class Show>
Json or_reason(const Expected<T>& value, Show show) {
  if (value) return show(*value);
  return Json{{"not_available", value.error().message}};
}

template <class T>
Json or_reason(const Expected<T>& value) {
  return or_reason(value, [](const T& v) { return Json(v); });
}

Json cpu_places(const Topology& topology, const std::vector<int>& cpus) {
  std::set<int> cores, nodes;
  for (const CpuInfo& info : topology.cpus) {
    for (int cpu : cpus) {
      if (info.os_index == cpu) {
        cores.insert(info.core);
        nodes.insert(info.numa_node);
      }
    }
  }
  return Json{{"cores", cores}, {"numa_nodes", nodes}};
}

Json nic_json(const NicInfo& nic, const Topology& topology, const TuningFacts& facts) {
  Json j;
  j["name"] = nic.name;
  j["driver"] = or_reason(nic.driver, [](const NicDriver& d) {
    return Json{{"name", d.name},
                {"version", d.version},
                {"firmware", d.firmware},
                {"bus_info", d.bus_info}};
  });
  j["pci_address"] = or_reason(nic.pci_address);
  j["numa_node"] = or_reason(nic.numa_node);
  j["local_cpus"] = or_reason(nic.local_cpus);
  j["mtu"] = or_reason(nic.mtu);
  j["max_mtu"] = or_reason(nic.max_mtu);
  j["speed_mbps"] = or_reason(nic.speed_mbps);
  j["channels"] = or_reason(nic.channels, [](const NicChannels& c) {
    return Json{{"rx", c.rx},
                {"tx", c.tx},
                {"combined", c.combined},
                {"other", c.other},
                {"max_rx", c.max_rx},
                {"max_tx", c.max_tx},
                {"max_combined", c.max_combined},
                {"max_other", c.max_other}};
  });
  j["rings"] = or_reason(nic.rings, [](const NicRings& r) {
    return Json{{"rx", r.rx}, {"tx", r.tx}, {"max_rx", r.max_rx}, {"max_tx", r.max_tx}};
  });
  j["coalescing"] = or_reason(nic.coalescing, [](const NicCoalescing& c) {
    return Json{{"rx_usecs", c.rx_usecs},       {"tx_usecs", c.tx_usecs},
                {"rx_frames", c.rx_frames},     {"tx_frames", c.tx_frames},
                {"adaptive_rx", c.adaptive_rx}, {"adaptive_tx", c.adaptive_tx}};
  });
  j["rss"] = or_reason(nic.rss, [](const NicRss& r) {
    return Json{{"indirection", r.indirection}, {"key", r.key}, {"hash_function", r.hash_function}};
  });
  Json fields = Json::object();
  for (const NicHashFields& f : nic.hash_fields) fields[f.flow_type] = or_reason(f.fields);
  j["hashed_fields"] = fields;
  j["rx_queues"] = rx_queue_count(nic);
  j["irqs"] = or_reason(nic.irqs, [&](const std::vector<NicIrq>& irqs) {
    Json list = Json::array();
    for (const NicIrq& irq : irqs) {
      Json entry{{"irq", irq.irq}, {"name", irq.name}, {"queue_kind", queue_kind_name(irq.kind)}};
      if (irq.queue >= 0) entry["queue"] = irq.queue;
      entry["affinity"] = or_reason(irq.affinity);
      entry["effective_affinity"] = or_reason(irq.effective_affinity);
      const Expected<std::vector<int>>& cpus =
          irq.effective_affinity && !irq.effective_affinity->empty() ? irq.effective_affinity
                                                                     : irq.affinity;
      if (cpus) entry["delivered_to"] = cpu_places(topology, *cpus);
      list.push_back(std::move(entry));
    }
    return list;
  });
  Json steering = Json::array();
  for (const NicQueueSteering& q : nic.steering)
    steering.push_back(
        Json{{"queue", fmt::format("{}-{}", queue_kind_name(q.kind), q.queue)},
             {q.kind == QueueKind::rx ? "rps_cpus" : "xps_cpus", or_reason(q.cpus)}});
  j["steering"] = steering;
  j["queue_counters"] = or_reason(nic.queue_counters, [](const QueueStatsRead& read) {
    auto figure = [](const std::optional<std::uint64_t>& v) { return v ? Json(*v) : Json(); };
    Json queues = Json::array();
    for (const auto& [queue, c] : read.queues)
      queues.push_back(Json{{"queue", queue},
                            {"rx_packets", figure(c.rx_packets)},
                            {"rx_bytes", figure(c.rx_bytes)},
                            {"tx_packets", figure(c.tx_packets)},
                            {"tx_bytes", figure(c.tx_bytes)}});
    return Json{{"source", queue_stats_source_name(read.source)}, {"queues", queues}};
  });
  j["warnings"] = nic_warnings(nic, topology, facts);
  return j;
}

}  // namespace

std::string topology_json(const Topology& topology, const std::vector<NicInfo>& nics,
                          const TuningFacts& facts) {
  Json cpus = Json::array();
  for (const CpuInfo& cpu : topology.cpus)
    cpus.push_back(Json{{"cpu", cpu.os_index},
                        {"core", cpu.core},
                        {"package", cpu.package},
                        {"numa_node", cpu.numa_node}});
  Json j{{"schema", "xttcp-topology"},         {"schema_version", 1},
         {"source", topology.source},          {"cpus", cpus},
         {"numa_nodes", numa_nodes(topology)}, {"placement_order", placement_order(topology)}};
  j["sysctl"] = Json{{"net.core.rmem_max", or_reason(facts.rmem_max)},
                     {"net.core.wmem_max", or_reason(facts.wmem_max)},
                     {"net.ipv4.tcp_rmem_max", or_reason(facts.tcp_rmem_max)},
                     {"net.ipv4.tcp_wmem_max", or_reason(facts.tcp_wmem_max)}};
  j["irqbalance_running"] = or_reason(facts.irqbalance_running);
  Json list = Json::array();
  for (const NicInfo& nic : nics) list.push_back(nic_json(nic, topology, facts));
  j["nics"] = list;
  return j.dump(2) + "\n";
}

int run_topology_command(const TopologyRequest& request) {
  const Topology topology = discover_topology();
  const TuningFacts facts = read_tuning_facts();
  std::vector<NicInfo> nics;
  if (!request.nic.empty()) {
    Expected<NicInfo> nic = discover_nic(request.nic);
    if (!nic) return usage_error("--nic: " + nic.error().message);
    nics.push_back(std::move(*nic));
  } else {
    for (const std::string& name : device_interfaces()) {
      if (Expected<NicInfo> nic = discover_nic(name)) nics.push_back(std::move(*nic));
    }
  }
  if (!request.json_file.empty()) {
    if (Status checked = check_result_path(request.json_file, "--json"); !checked) {
      std::fprintf(stderr, "xttcp: %s\n", checked.error().message.c_str());
      return exit_code::usage;
    }
  }
  std::string text = describe_topology(topology);
  if (nics.empty())
    text += "NICs: none with a device behind it (use --nic IF for a virtual interface)\n";
  for (const NicInfo& nic : nics) text += describe_nic(nic, topology, facts);
  std::fputs(text.c_str(), stdout);
  if (!request.json_file.empty()) {
    if (Status written =
            write_file_atomically(request.json_file, topology_json(topology, nics, facts));
        !written) {
      std::fprintf(stderr, "xttcp: --json: %s\n", written.error().message.c_str());
      return exit_code::run_failed;
    }
  }
  return exit_code::success;
}

}  // namespace xttcp
