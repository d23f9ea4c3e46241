#include "engine/nic_placement.hh"

#include <fmt/format.h>

#include "topology/nic/nic_discovery.hh"
#include "topology/nic/nic_report.hh"

namespace xttcp {
namespace {

// --nic, else the interface toward the peer (sender) or holding the bind address (receiver).
Expected<std::string> placement_nic(const TestSpec& spec) {
  if (!spec.placement.nic.empty()) return spec.placement.nic;
  if (spec.layout.address.empty() || spec.layout.address == "*")
    return fail("no --nic and the receiver listens on every address, so no route names a NIC");
  return interface_toward(spec.layout.address);
}

Expected<NicPlacementFacts> nic_facts(const TestSpec& spec) {
  Expected<std::string> name = placement_nic(spec);
  if (!name) return name.error();
  Expected<NicInfo> nic = discover_nic(*name);
  if (!nic) return nic.error();
  return placement_facts(*nic);
}

}  // namespace

Placement choose_placement(const TestSpec& spec, const Topology& topology) {
  if (spec.placement.mode == PlacementMode::spread) {
    Placement placement = place_workers(topology, PlacementMode::spread, fail("reads no NIC"));
    if (!spec.layout.pin_workers && !spec.layout.mapping_cpu)
      placement.why = "spread, unpinned (no --pin): the kernel places the workers";
    return placement;
  }
  return place_workers(topology, spec.placement.mode, nic_facts(spec));
}

}  // namespace xttcp
