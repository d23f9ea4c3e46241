// Discovery and NIC locality without hwloc: sched_getaffinity and sysfs only.
#include "topology/affinity.hh"
#include "topology/topology.hh"

namespace xttcp {

Topology discover_topology() { return discover_topology_without_hwloc(); }

Expected<std::vector<int>> nic_local_cpus(const std::string& ifname) {
  return affinity::nic_local_cpus_sysfs(ifname, discover_topology(), "/sys");
}

}  // namespace xttcp
