// What `xttcp topology` says about a NIC: the queue -> IRQ -> CPU -> core/node table and the
// warnings a cloud tuning guide would give. Pure: the facts come in, text comes out.
#pragma once

#include <string>
#include <vector>

#include "base/status.hh"
#include "topology/nic/nic_info.hh"
#include "topology/placement.hh"
#include "topology/topology.hh"

namespace xttcp {

// The round-trip time the bandwidth-delay product is taken at (a same-region cloud path).
inline constexpr double kWarningRttMs = 1.0;

// One line per problem found, each saying what and what to do; empty when none.
std::vector<std::string> nic_warnings(const NicInfo& nic, const Topology& topology,
                                      const TuningFacts& facts);

// The NIC's identity, locality, channels, RSS and queue table, then its warnings.
std::string describe_nic(const NicInfo& nic, const Topology& topology, const TuningFacts& facts);

// The RX queues the NIC has: RX and combined queue IRQs, else channels, else sysfs rx-N.
int rx_queue_count(const NicInfo& nic);

// What placement needs of the NIC: its NUMA node and, per RX or combined queue in queue order,
// the CPUs its IRQ is delivered to (effective affinity, else affinity). Error, with the reason,
// when the NIC's queue IRQs are not known.
Expected<NicPlacementFacts> placement_facts(const NicInfo& nic);

}  // namespace xttcp
