// -lm (NTttcp for Windows' latency measurement): the per-flow accumulator (FlowCounter's latency
// periods), its totals, the CallTimer the data loops use, WorkerPool's period per snapshot, and
// the Result's per-thread and overall latency. Pure arithmetic on chosen tick counts, no timing.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "engine/run/latency_result.hh"
#include "engine/run/worker_pool.hh"
#include "engine/stats/call_timer.hh"
#include "engine/stats/counters.hh"

namespace xttcp {
namespace {

using namespace std::chrono_literals;

TEST(LatencyCounter, OnePeriodSumsCountsAndKeepsTheExtremes) {
  FlowCounter c;
  for (uint64_t ticks : {50, 10, 90, 30}) c.add_latency(1, ticks);
  const LatencyTotals t = read_latency(c, 1);
  EXPECT_EQ(t.calls, 4u);
  EXPECT_EQ(t.sum, 180u);
  EXPECT_EQ(t.min, 10u);
  EXPECT_EQ(t.max, 90u);
  EXPECT_DOUBLE_EQ(t.average(), 45.0);
  EXPECT_EQ(read(c).bytes, 0u);  // bytes and operations are add()'s alone
}

TEST(LatencyCounter, ANewPeriodStartsAfreshAndTheOldOneReadsEmpty) {
  FlowCounter c;
  c.add_latency(1, 5);     // the shortest call of all: it must not leak into period 2
  c.add_latency(1, 1000);  // the longest, likewise
  c.add_latency(2, 200);
  c.add_latency(2, 100);
  const LatencyTotals second = read_latency(c, 2);
  EXPECT_EQ(second.calls, 2u);
  EXPECT_EQ(second.sum, 300u);
  EXPECT_EQ(second.min, 100u);
  EXPECT_EQ(second.max, 200u);
  EXPECT_EQ(read_latency(c, 1).calls, 0u);  // gone: the counter now holds period 2
  EXPECT_EQ(read_latency(c, 3).calls, 0u);  // no call yet in period 3
  EXPECT_EQ(read_latency(c, 0).calls, 0u);  // 0 is never a period
  EXPECT_EQ(read_latency(FlowCounter{}, 1).calls, 0u);
}

TEST(LatencyTotals, MergeAddsCallsAndSumsAndIgnoresEmptyOnes) {
  LatencyTotals a;
  a.merge(LatencyTotals{});
  EXPECT_EQ(a.calls, 0u);
  a.merge({2, 30, 10, 20});
  EXPECT_EQ(a.min, 10u);  // the first real one sets min and max, not the zeros of the empty
  a.merge(LatencyTotals{});
  a.merge({1, 40, 40, 40});
  a.merge({3, 15, 4, 6});
  EXPECT_EQ(a.calls, 6u);
  EXPECT_EQ(a.sum, 85u);
  EXPECT_EQ(a.min, 4u);
  EXPECT_EQ(a.max, 40u);
  EXPECT_DOUBLE_EQ(a.average(), 85.0 / 6.0);
  EXPECT_DOUBLE_EQ(LatencyTotals{}.average(), 0.0);
}

TEST(LatencyResult, TicksBecomeNanoseconds) {
  const IoLatency l = to_io_latency({4, 1000, 100, 500}, 100.0);  // QPC at 10 MHz: 100 ns a tick
  EXPECT_DOUBLE_EQ(l.average_ns, 25000.0);
  EXPECT_DOUBLE_EQ(l.min_ns, 10000.0);
  EXPECT_DOUBLE_EQ(l.max_ns, 50000.0);
  EXPECT_EQ(l.calls, 4u);
}

// Three flows: thread 0 has two (one worker each), thread 1 one, thread 2 none.
TEST(LatencyResult, ThreadsCombineTheirFlowsAndTheTotalWeighsEveryCall) {
  Plan plan;
  plan.workers.resize(2);
  plan.workers[0].flows = {FlowPlan{0, 0, 5001, 0}, FlowPlan{2, 1, 5002, 0}};
  plan.workers[1].flows = {FlowPlan{1, 0, 5001, 0}};
  plan.flow_count = 3;
  plan.thread_rows = 3;
  std::vector<CounterSnapshot> end(3);
  end[0].latency = {1, 100, 100, 100};
  end[1].latency = {3, 900, 200, 400};
  end[2].latency = {4, 80, 10, 30};
  Result r;
  r.threads.resize(3);
  fill_latency(r, plan, end, 1.0);
  ASSERT_TRUE(r.threads[0].latency.has_value());
  EXPECT_EQ(r.threads[0].latency->calls, 4u);
  EXPECT_DOUBLE_EQ(r.threads[0].latency->average_ns, 250.0);  // (100 + 900) / 4
  EXPECT_DOUBLE_EQ(r.threads[0].latency->min_ns, 100.0);
  EXPECT_DOUBLE_EQ(r.threads[0].latency->max_ns, 400.0);
  ASSERT_TRUE(r.threads[1].latency.has_value());
  EXPECT_DOUBLE_EQ(r.threads[1].latency->average_ns, 20.0);
  EXPECT_FALSE(r.threads[2].latency.has_value());  // no call timed: NA, not a false 0
  ASSERT_TRUE(r.latency.has_value());
  EXPECT_EQ(r.latency->calls, 8u);
  EXPECT_DOUBLE_EQ(r.latency->average_ns, 135.0);  // 1080 / 8, not the mean of the threads
  EXPECT_DOUBLE_EQ(r.latency->min_ns, 10.0);
  EXPECT_DOUBLE_EQ(r.latency->max_ns, 400.0);

  Result none;
  none.threads.resize(3);
  fill_latency(none, plan, std::vector<CounterSnapshot>(3), 1.0);
  EXPECT_FALSE(none.latency.has_value());
}

TEST(CallTimer, OffDoesNothingOnTimesIntoTheCurrentPeriod) {
  FlowCounter c;
  const CallTimer off;
  EXPECT_FALSE(off.on());
  EXPECT_EQ(off.stamp(), 0u);
  off.record(c, 0);
  EXPECT_EQ(c.latency_calls.load(), 0u);

  std::atomic<uint64_t> period{7};
  const CallTimer timer(&period);
  EXPECT_TRUE(timer.on());
  const uint64_t start = timer.stamp();
  timer.record(c, start);
  timer.record(c, timer.stamp());
  const LatencyTotals t = read_latency(c, 7);
  EXPECT_EQ(t.calls, 2u);
  EXPECT_LE(t.min, t.max);
  period = 8;
  timer.record(c, timer.stamp());
  EXPECT_EQ(read_latency(c, 8).calls, 1u);
}

// A worker that times the calls the test asks for, with chosen durations, into its flow.
struct Script {
  std::atomic<uint64_t> ask{0};   // ticks of the next call; 0 = none asked
  std::atomic<uint32_t> done{0};  // calls made
};

class ScriptedWorker final : public DataWorker {
 public:
  ScriptedWorker(const WorkerContext& context, Script& script)
      : context_(context), script_(script) {}
  Status open() override { return ok(); }
  void run(const std::atomic<bool>& stop) override {
    while (!stop.load()) {
      if (const uint64_t ticks = script_.ask.exchange(0)) {
        context_.counters[0].add_latency(context_.latency_period->load(), ticks);
        ++script_.done;
      }
      std::this_thread::yield();
    }
  }
  WorkerReport finish() override { return {}; }

 private:
  const WorkerContext& context_;
  Script& script_;
};

class ScriptedBackend final : public Backend {
 public:
  explicit ScriptedBackend(Script& script) : script_(script) {}
  std::string_view name() const override { return "scripted"; }
  std::string_view description() const override { return "test"; }
  Availability probe() const override { return {true, ""}; }
  uint32_t capabilities() const override { return cap_tcp; }
  Expected<std::unique_ptr<DataWorker>> make_worker(const WorkerContext& context) override {
    if (context.latency_period == nullptr) return fail("no latency period with -lm");
    return std::unique_ptr<DataWorker>(std::make_unique<ScriptedWorker>(context, script_));
  }

 private:
  Script& script_;
};

// Every wait is bounded (10 s); a call is made and counted before the test moves on.
bool call(Script& script, uint64_t ticks) {
  const uint32_t before = script.done.load();
  script.ask = ticks;
  for (int i = 0; i < 10000 && script.done.load() == before; ++i) std::this_thread::sleep_for(1ms);
  return script.done.load() == before + 1;
}

TEST(WorkerPoolLatency, EachSnapshotHoldsTheCallsSinceThePreviousOne) {
  Script script;
  ScriptedBackend backend(script);
  TestSpec spec;
  spec.dialect = Dialect::windows;
  spec.io.time_each_call = true;
  Plan plan;
  plan.workers.resize(1);
  plan.workers[0].flows = {FlowPlan{0, 0, 5001, 0}};
  plan.flow_count = 1;
  plan.thread_rows = 1;
  WorkerPool pool(backend, spec, plan, SocketAddress{}, SocketAddress{});
  ASSERT_TRUE(pool.open_all(10s));
  pool.release();
  ASSERT_TRUE(call(script, 7));  // "warm-up": before the window's first snapshot
  ASSERT_TRUE(call(script, 1));
  const std::vector<CounterSnapshot> begin = pool.snapshot();
  EXPECT_EQ(begin[0].latency.calls, 2u);
  EXPECT_EQ(begin[0].latency.max, 7u);
  ASSERT_TRUE(call(script, 40));  // the window
  ASSERT_TRUE(call(script, 20));
  ASSERT_TRUE(call(script, 30));
  const std::vector<CounterSnapshot> end = pool.snapshot();
  EXPECT_EQ(end[0].latency.calls, 3u);
  EXPECT_EQ(end[0].latency.sum, 90u);
  EXPECT_EQ(end[0].latency.min, 20u);  // the warm-up's 1 is not in it
  EXPECT_EQ(end[0].latency.max, 40u);
  EXPECT_EQ(pool.snapshot()[0].latency.calls, 0u);  // nothing since
  pool.stop_and_join();
}

}  // namespace
}  // namespace xttcp
