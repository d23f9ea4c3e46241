// Placement that follows the NIC: from the machine's CPUs and what the NIC says about its RX
// queue interrupts, the CPUs workers take, in order, and why. Pure; the plan takes the order.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.hh"
#include "topology/placement_spec.hh"
#include "topology/topology.hh"

namespace xttcp {

const char* placement_mode_name(PlacementMode mode);  // "irq-sibling"
// "--placement: 'x' is not one of spread, numa, irq, irq-sibling, avoid-irq"
Expected<PlacementMode> parse_placement_mode(std::string_view text);

// What placement needs to know about the NIC.
struct NicPlacementFacts {
  std::string nic;
  int numa_node = -1;                           // -1: the platform gives none
  std::vector<std::vector<int>> rx_queue_cpus;  // per RX (or combined) queue: CPUs its IRQ hits
};

struct Placement {
  PlacementMode asked = PlacementMode::spread;
  PlacementMode used = PlacementMode::spread;  // spread when the NIC cannot support `asked`
  std::vector<int> cpus;                       // worker order, never empty for a non-empty topology
  std::string why;                             // one sentence, for the result and -V
};

// `nic` is the NIC's facts or why there are none; modes other than spread need them and fall
// back to spread, saying why, when they are missing or leave no CPU.
Placement place_workers(const Topology& topology, PlacementMode mode,
                        const Expected<NicPlacementFacts>& nic);

}  // namespace xttcp
