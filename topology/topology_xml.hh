// A machine described by an hwloc XML file instead of this one: how placement is tested on
// machines the test host is not (2 packages x 2 NUMA nodes, SMT). Needs hwloc.
#pragma once

#include <string>
#include <vector>

#include "base/status.hh"
#include "topology/topology.hh"

namespace xttcp {

struct XmlMachine {
  Topology topology;                // every PU of the file (none is bound by this process)
  std::vector<int> nic_local_cpus;  // the cpuset of the NIC's first non-I/O ancestor
  int nic_numa_node = -1;           // the NUMA node holding those CPUs, -1 when none does
};

// Loads `path` through hwloc's XML import; `nic` names the network OS device whose locality is
// wanted. Error: "cannot load hwloc XML <path>: ...", "<path> has no network device 'eth9'", or
// "hwloc XML needs hwloc (not found at build time)".
Expected<XmlMachine> load_xml_machine(const std::string& path, const std::string& nic);

}  // namespace xttcp
