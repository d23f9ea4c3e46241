// --placement: which CPUs the plan's workers take, chosen from the topology and the NIC that
// --nic names (or that routes to the peer). The modes themselves are topology/placement.hh.
#pragma once

#include "engine/spec.hh"
#include "topology/placement.hh"
#include "topology/topology.hh"

namespace xttcp {

// spread needs no NIC and reads none. The other modes read the NIC (--nic, else the interface
// toward spec.layout.address) and fall back to spread, saying why, when it cannot be read.
Placement choose_placement(const TestSpec& spec, const Topology& topology);

}  // namespace xttcp
