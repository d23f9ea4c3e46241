// --placement and --nic: how workers are placed on CPUs relative to the NIC. A block of its own,
// embedded in TestSpec with one line, so the option's fields stay together.
#pragma once

#include <string>

namespace xttcp {

enum class PlacementMode {
  spread,       // one PU per core round-robin over NUMA nodes, then siblings (no NIC facts)
  numa,         // the NIC's NUMA node only
  irq,          // worker i on the CPU that takes RX queue i's interrupt
  irq_sibling,  // worker i on that CPU's hyperthread sibling
  avoid_irq,    // only cores that take no queue interrupt
};

struct PlacementSpec {
  PlacementMode mode = PlacementMode::spread;  // --placement
  std::string nic;  // --nic: the interface placement follows; "" = the one routing to the peer
};

}  // namespace xttcp
