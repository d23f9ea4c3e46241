// make_plan: NTttcp's layout (ports x threads x connections) mapped onto worker threads.
#include "engine/plan.hh"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "tests/unit/engine/specs.hh"

namespace xttcp {
namespace {

TEST(Plan, SenderHasOneFlowPerConnectionAndOneRowPerThread) {
  auto plan = make_plan(test::sender_spec(16, 4, 2), {0, 1});
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
TEST(Plan, ThreadMappingsOnDifferentCpusGetOneWorkerEach) {
  TestSpec spec = test::sender_spec(4, 1, 1);
  spec.dialect = Dialect::windows;
  spec.layout.mappings = {{2, 0, "h"}, {1, 1, "h"}, {1, std::nullopt, "h"}};
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
  spec.layout.mappings = {{2, 1, "h"}, {2, 1, "h"}};  // the same CPU: the usual plan
  spec.layout.mapping_cpu = 1;                        // (as the parser sets it then)
  auto same = make_plan(spec, {0, 1});
  ASSERT_TRUE(same.has_value());
  ASSERT_EQ(same->workers.size(), 1u);
  EXPECT_EQ(same->workers[0].cpu, 1);
}

// NTttcp for Windows -m 2,*,a 1,*,b 1,*,a: global thread i uses base+i on both sides and
// connects to (sender) or listens on (receiver) its own mapping's host.
TestSpec two_host_spec(Role role) {
  TestSpec spec = test::sender_spec(4, 1, 1);
  spec.role = role;
  spec.dialect = Dialect::windows;
  // Moved in, not assigned from a literal: GCC 12 -O3 flags that with a false -Wrestrict.
  spec.layout.address = std::string("a");  // the first mapping's host, as the parser sets it
  spec.layout.mappings = {{2, std::nullopt, "a"}, {1, std::nullopt, "b"}, {1, std::nullopt, "a"}};
  return spec;
}

// (thread, host name, port) of every flow, in thread order.
std::vector<std::tuple<uint32_t, std::string, uint16_t>> flows_of(const Plan& plan) {
  std::vector<std::tuple<uint32_t, std::string, uint16_t>> out;
  for (const WorkerPlan& w : plan.workers)
    for (const FlowPlan& f : w.flows)
      out.emplace_back(f.thread_index, plan.hosts.at(f.host), f.port);
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Plan, ThreadMappingsTowardsSeveralHostsGiveEachFlowItsHost) {
  for (Role role : {Role::sender, Role::receiver}) {
    auto plan = make_plan(two_host_spec(role), {0, 1});
    ASSERT_TRUE(plan.has_value()) << plan.error().message;
    EXPECT_EQ(plan->hosts, (std::vector<std::string>{"a", "b"})) << "distinct, first use first";
    using Row = std::tuple<uint32_t, std::string, uint16_t>;
    EXPECT_EQ(flows_of(*plan),
              (std::vector<Row>{{0, "a", 5001}, {1, "a", 5002}, {2, "b", 5003}, {3, "a", 5004}}));
  }
}

// -sp: each receiver hands out its own data ports from base + 1, so a sender numbers them per
// host (the run plans with base_port = base + 1, the first data port).
TEST(Plan, WindowsSpSenderNumbersDataPortsPerHost) {
  TestSpec spec = two_host_spec(Role::sender);
  spec.control.port_assignment = true;
  spec.layout.base_port = 5002;
  auto plan = make_plan(spec, {0});
  ASSERT_TRUE(plan.has_value());
  using Row = std::tuple<uint32_t, std::string, uint16_t>;
  EXPECT_EQ(flows_of(*plan),
            (std::vector<Row>{{0, "a", 5002}, {1, "a", 5003}, {2, "b", 5002}, {3, "a", 5004}}));
}

TEST(Plan, OneHostUnlessThreadMappingsNameSeveral) {
  TestSpec spec = test::sender_spec(2, 2, 1);
  spec.layout.address = "10.0.0.1";
  auto plan = make_plan(spec, {0});
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->hosts, std::vector<std::string>{"10.0.0.1"});
  for (const FlowPlan& f : plan->workers[0].flows) EXPECT_EQ(f.host, 0);
  TestSpec same = two_host_spec(Role::sender);
  for (ThreadMapping& m : same.layout.mappings) m.host = std::string("a");  // see two_host_spec
  EXPECT_EQ(make_plan(same, {0})->hosts, std::vector<std::string>{"a"});
  EXPECT_EQ(thread_host(two_host_spec(Role::sender), 2), "b");
  EXPECT_EQ(thread_host(two_host_spec(Role::sender), 3), "a");
  EXPECT_EQ(thread_host(spec, 3), "10.0.0.1");
}

TEST(Plan, ConnectionsOfOneThreadShareAWorker) {
  auto plan = make_plan(test::sender_spec(2, 2, 3), {0, 1, 2});
  ASSERT_TRUE(plan.has_value());
  for (const WorkerPlan& w : plan->workers)
    for (const FlowPlan& f : w.flows) EXPECT_EQ(f.thread_index % plan->workers.size(), w.index);
}

TEST(Plan, NeverMoreWorkersThanFlows) {
  TestSpec spec = test::sender_spec(1, 1, 1);
  spec.layout.pin_workers = true;
  auto plan = make_plan(spec, {0, 1, 2, 3});
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->workers.size(), 1u);
  EXPECT_EQ(plan->workers[0].cpu, 0);
}

TEST(Plan, ThreadsOptionOverridesTheWorkerCount) {
  TestSpec spec = test::sender_spec(4, 1, 1);
  spec.layout.worker_threads = 3;
  spec.layout.pin_workers = true;
  auto plan = make_plan(spec, {0, 1});
  ASSERT_TRUE(plan.has_value());
  ASSERT_EQ(plan->workers.size(), 3u);
  EXPECT_EQ(plan->workers[2].cpu, 0) << "workers wrap around the CPU list";
}

TEST(Plan, MappingCpuPinsEveryWorkerThere) {
  TestSpec spec = test::sender_spec(8, 1, 1);
  spec.layout.mapping_cpu = 1;
  auto plan = make_plan(spec, {0, 1});
  ASSERT_TRUE(plan.has_value());
  ASSERT_EQ(plan->workers.size(), 1u);
  EXPECT_EQ(plan->workers[0].cpu, 1);
  EXPECT_EQ(plan->describe_cpus(), "worker 0 -> cpu 1");
}

TEST(Plan, ReceiverHasOneFlowPerPort) {
  TestSpec spec;
  spec.layout.ports = 3;
  spec.layout.base_port = 6000;
  auto plan = make_plan(spec, {0});
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->flow_count, 3u);
  EXPECT_EQ(plan->thread_rows, 3u);
  EXPECT_EQ(plan->workers[0].flows[2].port, 6002);
}

TEST(Plan, WithoutPinTheKernelPlacesOneWorkerPerCpu) {
  auto plan = make_plan(test::sender_spec(4, 1, 1), {0, 1});
  ASSERT_TRUE(plan.has_value());
  ASSERT_EQ(plan->workers.size(), 2u);
  EXPECT_FALSE(plan->workers[0].cpu.has_value());
  EXPECT_EQ(plan->describe_cpus(), "worker 0 -> any cpu, worker 1 -> any cpu");
}

TEST(Plan, NoCpusMeansOneUnpinnedWorker) {
  auto plan = make_plan(test::sender_spec(2, 1, 1), {});
  ASSERT_TRUE(plan.has_value());
  ASSERT_EQ(plan->workers.size(), 1u);
  EXPECT_FALSE(plan->workers[0].cpu.has_value());
  EXPECT_EQ(plan->describe_cpus(), "worker 0 -> any cpu");
}

TEST(Plan, SourcePortsFollowNtttcpForLinux) {
  TestSpec spec = test::sender_spec(2, 3, 4);
  spec.layout.source_base_port = 25001;
  // f + (portIndex*threadsPerPort + threadIndex)*connsPerThread + connIndex
  EXPECT_EQ(source_port_for(spec, 1, 2, 3), 25001 + (1 * 3 + 2) * 4 + 3);
  spec.layout.source_base_port = 0;
  EXPECT_EQ(source_port_for(spec, 1, 2, 3), 0);
}

TEST(Plan, PortRangesPast65535AreRefused) {
  TestSpec spec = test::sender_spec(10, 1, 1);
  spec.layout.base_port = 65530;
  auto plan = make_plan(spec, {0});
  ASSERT_FALSE(plan.has_value());
  EXPECT_EQ(plan.error().message, "-p/-P: ports 65530..65539 run past 65535");
  spec = test::sender_spec(10, 10, 10);
  spec.layout.source_base_port = 65000;
  EXPECT_FALSE(make_plan(spec, {0}).has_value());
}

}  // namespace
}  // namespace xttcp
