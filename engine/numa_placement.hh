// NTttcp for Windows -na NODE: the workers that no -m mapping pins run on that NUMA node's CPUs
// only (the original sets each unpinned thread's group affinity to the node's mask). Pinned
// workers keep their CPU, wherever it is.
#pragma once

#include "base/status.hh"
#include "engine/plan.hh"
#include "engine/spec.hh"
#include "topology/topology.hh"

namespace xttcp {

// Sets cpu_set of every unpinned worker to the node's CPUs this process may use. Nothing to do
// without -na. Error for a node without such CPUs, naming -na and the nodes there are:
// "-na 3: NUMA node 3 has no CPU this process may use (nodes: 0)".
Status place_on_numa_node(const TestSpec& spec, const Topology& topology, Plan& plan);

}  // namespace xttcp
