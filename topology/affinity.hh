// Internal to topology/: sched_getaffinity and sysfs helpers shared by both implementations.
#pragma once

#include <string>
#include <vector>

#include "base/status.hh"
#include "topology/topology.hh"

namespace xttcp::affinity {

// CPUs the calling thread may run on (before any pinning this is the process's set).
Expected<std::vector<int>> allowed_cpus();

// Why `ifname` has no CPU locality, or ok() when it has a device that may have one.
Status check_nic_has_device(const std::string& ifname, const std::string& sys_root);

// The allowed CPUs in <device>/local_cpulist of `ifname` (walking up from a virtio device to its
// PCI function), in the topology's placement order.
Expected<std::vector<int>> nic_local_cpus_sysfs(const std::string& ifname, const Topology& topology,
                                                const std::string& sys_root);

// The locality `local` restricted to the topology's CPUs, in placement order; an error naming
// the interface when nothing is left.
Expected<std::vector<int>> restrict_to_topology(const std::string& ifname,
                                                const std::vector<int>& local,
                                                const Topology& topology);

}  // namespace xttcp::affinity
