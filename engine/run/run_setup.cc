#include "engine/run/run_setup.hh"

#include "engine/nic_placement.hh"
#include "engine/numa_placement.hh"
#include "engine/run/descriptor_limit.hh"
#include "topology/topology.hh"

namespace xttcp {

Expected<RunSetup> prepare_run(const TestSpec& spec, Backend& backend) {
  // Discovered before any pinning: the allowed set is read from this thread's affinity.
  const Topology topology = discover_topology();
  Placement placement = choose_placement(spec, topology);
  auto plan = make_plan(spec, placement.cpus);
  if (!plan) return plan.error();
  plan->placement = std::move(placement);
  if (Status placed = place_on_numa_node(spec, topology, *plan); !placed) return placed.error();
  if (Status fits = fit_open_files(spec, plan->workers.size()); !fits) return fits.error();
  return RunSetup{&backend, std::move(*plan)};
}

Expected<Plan> replan(const TestSpec& spec, const Plan& made, Backend& backend) {
  if (spec.layout.numa_node) {
    auto setup = prepare_run(spec, backend);
    if (!setup) return setup.error();
    return std::move(setup->plan);
  }
  auto plan = make_plan(spec, made.placement.cpus);
  if (!plan) return plan.error();
  plan->placement = made.placement;
  if (Status fits = fit_open_files(spec, plan->workers.size()); !fits) return fits.error();
  return plan;
}

Expected<std::vector<SocketAddress>> resolve_hosts(const TestSpec& spec, const Plan& plan,
                                                   std::string_view option) {
  const std::string named_by = spec.dialect == Dialect::windows ? "-m" : std::string(option);
  std::vector<SocketAddress> addresses;
  for (const std::string& host : plan.hosts) {
    auto address = resolve(host, 0, spec.layout.ipv6);
    if (!address) return fail(named_by + ": " + address.error().message);
    addresses.push_back(*address);
  }
  return addresses;
}

}  // namespace xttcp
