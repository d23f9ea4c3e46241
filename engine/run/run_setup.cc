#include "engine/run/run_setup.hh"

#include "engine/numa_placement.hh"
#include "topology/topology.hh"

namespace xttcp {

Expected<RunSetup> prepare_run(const TestSpec& spec) {
  auto backend = select_backend(spec);
  if (!backend) return backend.error();
  // Discovered before any pinning: the allowed set is read from this thread's affinity.
  const Topology topology = discover_topology();
  auto plan = make_plan(spec, placement_order(topology));
  if (!plan) return plan.error();
  if (Status placed = place_on_numa_node(spec, topology, *plan); !placed) return placed.error();
  return RunSetup{*backend, std::move(*plan)};
}

}  // namespace xttcp
