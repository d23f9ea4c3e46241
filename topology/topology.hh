// CPU topology and pinning: which CPUs this process may use, how they group into cores, packages
// and NUMA nodes, the order workers take them in, and NIC locality.
//
// One interface, one implementation per platform file (chosen in topology/meson.build):
// topology_hwloc.cc when hwloc is found, topology_fallback.cc (sched_getaffinity + sysfs) when
// not. Placement and formatting (topology.cc) know no backend.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.hh"

namespace xttcp {

struct CpuInfo {
  int os_index = 0;  // the number the OS and `taskset` use
  int core = 0;      // physical core, unique across packages
  int package = 0;
  int numa_node = 0;
};

struct Topology {
  std::vector<CpuInfo> cpus;  // only CPUs this process may run on, by os_index
  std::string source;         // "hwloc 2.9.0" or "sched_getaffinity"
};

// Never empty: when discovery fails it falls back to sched_getaffinity, then to CPU 0, and says
// so in `source`.
Topology discover_topology();

// The same without hwloc: sched_getaffinity for the allowed set, <sys_root>/devices/system/cpu
// for cores, packages and NUMA nodes. Always built; the fallback and tests use it.
Topology discover_topology_without_hwloc(const std::string& sys_root = "/sys");

// Placement order for workers: one PU per physical core first, taking cores round-robin across
// NUMA nodes/packages, then the sibling hyperthreads in the same order. A permutation of the
// topology's CPUs.
std::vector<int> placement_order(const Topology& topology);

// Pins the calling thread. Error: "cannot pin to cpu N: <reason>".
Status pin_current_thread(int cpu);

// Lets the calling thread run on any of `cpus` (not empty) and no other. Windows: within one
// processor group, the first CPU's, as a NUMA node's mask is. Error: "cannot restrict to cpus
// 0-3: <reason>" (or "cannot restrict to cpu -1: cpu numbers start at 0").
Status restrict_current_thread(const std::vector<int>& cpus);

// The NUMA nodes of the topology's CPUs (those this process may use), ascending.
std::vector<int> numa_nodes(const Topology& topology);

// The CPUs of NUMA node `node` that this process may use, in placement order; an error naming
// the nodes there are when it has none: "NUMA node 3 has no CPU this process may use (nodes: 0)".
Expected<std::vector<int>> numa_node_cpus(const Topology& topology, int node);

// Multi-line text for `xttcp topology`.
std::string describe_topology(const Topology& topology);

bool cpu_allowed(const Topology& topology, int cpu);

// The CPUs local to a network interface (its PCI device's NUMA locality) that this process may
// use, in placement order. Error for interfaces without locality, with the reason: "lo is a
// virtual interface (no device): no CPU locality".
Expected<std::vector<int>> nic_local_cpus(const std::string& ifname);

// Linux cpulist text ("0-3,8,10-11") <-> CPU numbers (sorted, unique).
Expected<std::vector<int>> parse_cpu_list(std::string_view text);
std::string format_cpu_list(std::vector<int> cpus);

}  // namespace xttcp
