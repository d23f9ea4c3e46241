// make_plan: NTttcp's layout (ports x threads x connections) mapped onto worker threads.
#include "engine/plan.hh"

#include <gtest/gtest.h>

#include <set>

namespace xttcp {
namespace {

TestSpec sender(uint32_t ports, uint32_t threads, uint32_t conns) {
  TestSpec spec;
  spec.role = Role::sender;
  spec.ports = ports;
  spec.threads_per_port = threads;
  spec.conns_per_thread = conns;
  return spec;
}

TEST(Plan, SenderHasOneFlowPerConnectionAndOneRowPerThread) {
  auto plan = make_plan(sender(16, 4, 2), {0, 1});
  ASSERT_TRUE(plan.has_value()) << plan.error().message;
  EXPECT_EQ(plan->flow_count, 128u);
  EXPECT_EQ(plan->thread_rows, 64u);
  EXPECT_EQ(plan->workers.size(), 2u);
  std::set<uint32_t> slots;
  for (const WorkerPlan& w : plan->workers)
    for (const FlowPlan& f : w.flows) {
      slots.insert(f.slot);
      EXPECT_EQ(f.port, 5001 + f.thread_index / 4);
    }
  EXPECT_EQ(slots.size(), 128u) << "every slot exactly once";
}

// NTttcp for Windows -m 2,0,h 1,1,h 1,*,h: one worker per mapping, on the mapping's CPU, with
// that mapping's threads (global thread i = port base+i).
TEST(Plan, WindowsMappingsOnDifferentCpusGetOneWorkerEach) {
  TestSpec spec = sender(4, 1, 1);
  spec.dialect = Dialect::windows;
  spec.windows.mappings = {{2, 0, "h"}, {1, 1, "h"}, {1, std::nullopt, "h"}};
  for (Role role : {Role::sender, Role::receiver}) {
    spec.role = role;
    auto plan = make_plan(spec, {0, 1});
    ASSERT_TRUE(plan.has_value()) << plan.error().message;
    ASSERT_EQ(plan->workers.size(), 3u);
    EXPECT_EQ(plan->workers[0].cpu, 0);
    EXPECT_EQ(plan->workers[1].cpu, 1);
    EXPECT_EQ(plan->workers[2].cpu, std::nullopt);
    std::vector<std::vector<uint32_t>> threads;
    for (const WorkerPlan& w : plan->workers) {
      threads.emplace_back();
      for (const FlowPlan& f : w.flows) threads.back().push_back(f.thread_index);
    }
    EXPECT_EQ(threads, (std::vector<std::vector<uint32_t>>{{0, 1}, {2}, {3}}));
  }
  spec.windows.mappings = {{2, 1, "h"}, {2, 1, "h"}};  // the same CPU: the usual plan
  spec.mapping_cpu = 1;                                  // (as the parser sets it then)
  auto same = make_plan(spec, {0, 1});
  ASSERT_TRUE(same.has_value());
  ASSERT_EQ(same->workers.size(), 1u);
  EXPECT_EQ(same->workers[0].cpu, 1);
}

TEST(Plan, ConnectionsOfOneThreadShareAWorker) {
  auto plan = make_plan(sender(2, 2, 3), {0, 1, 2});
  ASSERT_TRUE(plan.has_value());
  for (const WorkerPlan& w : plan->workers)
    for (const FlowPlan& f : w.flows) EXPECT_EQ(f.thread_index % plan->workers.size(), w.index);
}

TEST(Plan, NeverMoreWorkersThanFlows) {
  TestSpec spec = sender(1, 1, 1);
  spec.pin_workers = true;
  auto plan = make_plan(spec, {0, 1, 2, 3});
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->workers.size(), 1u);
  EXPECT_EQ(plan->workers[0].cpu, 0);
}

TEST(Plan, ThreadsOptionOverridesTheWorkerCount) {
  TestSpec spec = sender(4, 1, 1);
  spec.worker_threads = 3;
  spec.pin_workers = true;
  auto plan = make_plan(spec, {0, 1});
  ASSERT_TRUE(plan.has_value());
  ASSERT_EQ(plan->workers.size(), 3u);
  EXPECT_EQ(plan->workers[2].cpu, 0) << "workers wrap around the CPU list";
}

TEST(Plan, MappingCpuPinsEveryWorkerThere) {
  TestSpec spec = sender(8, 1, 1);
  spec.mapping_cpu = 1;
  auto plan = make_plan(spec, {0, 1});
  ASSERT_TRUE(plan.has_value());
  ASSERT_EQ(plan->workers.size(), 1u);
  EXPECT_EQ(plan->workers[0].cpu, 1);
  EXPECT_EQ(plan->describe_cpus(), "worker 0 -> cpu 1");
}

TEST(Plan, ReceiverHasOneFlowPerPort) {
  TestSpec spec;
  spec.ports = 3;
  spec.base_port = 6000;
  auto plan = make_plan(spec, {0});
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->flow_count, 3u);
  EXPECT_EQ(plan->thread_rows, 3u);
  EXPECT_EQ(plan->workers[0].flows[2].port, 6002);
}

TEST(Plan, WithoutPinTheKernelPlacesOneWorkerPerCpu) {
  auto plan = make_plan(sender(4, 1, 1), {0, 1});
  ASSERT_TRUE(plan.has_value());
  ASSERT_EQ(plan->workers.size(), 2u);
  EXPECT_FALSE(plan->workers[0].cpu.has_value());
  EXPECT_EQ(plan->describe_cpus(), "worker 0 -> any cpu, worker 1 -> any cpu");
}

TEST(Plan, NoCpusMeansOneUnpinnedWorker) {
  auto plan = make_plan(sender(2, 1, 1), {});
  ASSERT_TRUE(plan.has_value());
  ASSERT_EQ(plan->workers.size(), 1u);
  EXPECT_FALSE(plan->workers[0].cpu.has_value());
  EXPECT_EQ(plan->describe_cpus(), "worker 0 -> any cpu");
}

TEST(Plan, SourcePortsFollowNtttcpForLinux) {
  TestSpec spec = sender(2, 3, 4);
  spec.source_base_port = 25001;
  // f + (portIndex*threadsPerPort + threadIndex)*connsPerThread + connIndex
  EXPECT_EQ(source_port_for(spec, 1, 2, 3), 25001 + (1 * 3 + 2) * 4 + 3);
  spec.source_base_port = 0;
  EXPECT_EQ(source_port_for(spec, 1, 2, 3), 0);
}

TEST(Plan, PortRangesPast65535AreRefused) {
  TestSpec spec = sender(10, 1, 1);
  spec.base_port = 65530;
  auto plan = make_plan(spec, {0});
  ASSERT_FALSE(plan.has_value());
  EXPECT_EQ(plan.error().message, "-p/-P: ports 65530..65539 run past 65535");
  spec = sender(10, 10, 10);
  spec.source_base_port = 65000;
  EXPECT_FALSE(make_plan(spec, {0}).has_value());
}

}  // namespace
}  // namespace xttcp
