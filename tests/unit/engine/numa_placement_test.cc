// -na NODE (NTttcp for Windows): where unpinned workers may run, on synthetic 2-node machines.
#include "engine/numa_placement.hh"

#include <gtest/gtest.h>

#include "tools/cli/command.hh"

namespace xttcp {
namespace {

// Node 0: CPUs 0-3, node 1: CPUs 4-7; one thread per core.
Topology two_nodes() {
  Topology topology;
  topology.source = "synthetic";
  for (int cpu = 0; cpu < 8; ++cpu) topology.cpus.push_back(CpuInfo{cpu, cpu, cpu / 4, cpu / 4});
  return topology;
}

TestSpec windows_spec(std::vector<std::string> args) {
  auto command = parse_windows_dialect(args, 8);
  EXPECT_TRUE(command.has_value()) << (command ? "" : command.error().message);
  return command ? command->spec : TestSpec{};
}

Plan placed(const TestSpec& spec, const Topology& topology) {
  auto plan = make_plan(spec, placement_order(topology));
  EXPECT_TRUE(plan.has_value()) << (plan ? "" : plan.error().message);
  if (!plan) return {};
  Status status = place_on_numa_node(spec, topology, *plan);
  EXPECT_TRUE(status) << (status ? "" : status.error().message);
  return *plan;
}

TEST(NumaPlacement, UnpinnedWorkersRunOnTheNodesCpusOnly) {
  const TestSpec spec = windows_spec({"-s", "-m", "4,*,127.0.0.1", "-t", "5", "-na", "1"});
  const Plan plan = placed(spec, two_nodes());
  ASSERT_FALSE(plan.workers.empty());
  for (const WorkerPlan& worker : plan.workers) {
    EXPECT_FALSE(worker.cpu.has_value());
    EXPECT_EQ(worker.cpu_set, (std::vector<int>{4, 5, 6, 7})) << worker.index;
  }
  EXPECT_EQ(plan.describe_cpus().substr(0, 24), "worker 0 -> cpus 4-7, wo");
}

TEST(NumaPlacement, PinnedMappingsKeepTheirCpu) {
  // NTttcp for Windows applies -na to the threads of '*' mappings only.
  const TestSpec spec =
      windows_spec({"-r", "-m", "1,2,127.0.0.1", "2,*,127.0.0.1", "-t", "5", "-na", "0"});
  const Plan plan = placed(spec, two_nodes());
  ASSERT_EQ(plan.workers.size(), 2u);
  EXPECT_EQ(plan.workers[0].cpu, 2);
  EXPECT_TRUE(plan.workers[0].cpu_set.empty());
  EXPECT_FALSE(plan.workers[1].cpu.has_value());
  EXPECT_EQ(plan.workers[1].cpu_set, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(plan.describe_cpus(), "worker 0 -> cpu 2, worker 1 -> cpus 0-3");
}

TEST(NumaPlacement, WithoutNaNothingChanges) {
  const TestSpec spec = windows_spec({"-s", "-m", "4,*,127.0.0.1", "-t", "5"});
  const Plan plan = placed(spec, two_nodes());
  for (const WorkerPlan& worker : plan.workers) EXPECT_TRUE(worker.cpu_set.empty());
}

TEST(NumaPlacement, ANodeThatDoesNotExistIsRefusedNamingTheNodes) {
  const TestSpec spec = windows_spec({"-s", "-m", "4,*,127.0.0.1", "-t", "5", "-na", "3"});
  auto plan = make_plan(spec, placement_order(two_nodes()));
  ASSERT_TRUE(plan.has_value());
  Status status = place_on_numa_node(spec, two_nodes(), *plan);
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().message,
            "-na 3: NUMA node 3 has no CPU this process may use (nodes: 0, 1)");
}

}  // namespace
}  // namespace xttcp
