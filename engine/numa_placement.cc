#include "engine/numa_placement.hh"

#include <fmt/format.h>

namespace xttcp {

Status place_on_numa_node(const TestSpec& spec, const Topology& topology, Plan& plan) {
  if (!spec.layout.numa_node) return ok();
  const int node = static_cast<int>(*spec.layout.numa_node);
  auto cpus = numa_node_cpus(topology, node);
  if (!cpus) return fail(fmt::format("-na {}: {}", node, cpus.error().message));
  for (WorkerPlan& worker : plan.workers)
    if (!worker.cpu) worker.cpu_set = *cpus;
  return ok();
}

}  // namespace xttcp
