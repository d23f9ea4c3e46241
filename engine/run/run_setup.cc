#include "engine/run/run_setup.hh"

#include "topology/topology.hh"

namespace xttcp {

Expected<RunSetup> prepare_run(const TestSpec& spec) {
  auto backend = select_backend(spec);
  if (!backend) return backend.error();
  // Discovered before any pinning: the allowed set is read from this thread's affinity.
  auto plan = make_plan(spec, placement_order(discover_topology()));
  if (!plan) return plan.error();
  return RunSetup{*backend, std::move(*plan)};
}

}  // namespace xttcp
