// `xttcp topology [--nic IF] [--json FILE]`: the machine's CPUs, cores and NUMA nodes, and per NIC
// its queues, their IRQs and the CPUs, cores and nodes those land on, with tuning warnings.
#pragma once

#include <string>

#include "tools/cli/command.hh"
#include "topology/nic/nic_info.hh"
#include "topology/topology.hh"

namespace xttcp {

// Prints the report; writes the native JSON form when asked. Exit code: 0, 2 for a --nic that
// names no interface, 1 when the JSON file cannot be written.
int run_topology_command(const TopologyRequest& request);

// The native JSON form (schema "xttcp-topology", version 1; docs/topology.md).
std::string topology_json(const Topology& topology, const std::vector<NicInfo>& nics,
                          const TuningFacts& facts);

}  // namespace xttcp
