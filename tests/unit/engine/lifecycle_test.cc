// The engine without a network: the null backend under WorkerPool and Timeline, and the
// Result built from what they measured. No timing thresholds: only structure and counts.
#include <gtest/gtest.h>

#include <cstdio>
#include <thread>

#include "engine/report/log.hh"
#include "engine/run/result_builder.hh"
#include "engine/run/timeline.hh"
#include "engine/run/worker_pool.hh"
#include "io_backends/registry.hh"

namespace xttcp {
namespace {

using namespace std::chrono_literals;

Backend& null_backend();

// A null-backend sender with its pool, clock, probe and timeline, ready to open and run.
struct NullRun {
  // Declared first, so it is closed last, after the log that writes to it.
  std::unique_ptr<FILE, int (*)(FILE*)> sink_file{std::tmpfile(), &std::fclose};
  FILE* sink = sink_file.get();
  TestSpec spec;
  Plan plan;
  std::unique_ptr<Log> log;
  PhaseClock clock;
  std::unique_ptr<WorkerPool> pool;
  std::unique_ptr<SystemProbe> probe;
  std::unique_ptr<Timeline> timeline;

  explicit NullRun(double interval_s = 0.1) {
    spec.role = Role::sender;
    spec.backend = "null";
    spec.layout.ports = 2;
    spec.layout.threads_per_port = 2;
    spec.output.interval_s = interval_s;
    plan = *make_plan(spec, {0, 1});
    Log::Options options;
    options.out = sink;
    options.err = sink;
    log = std::move(*Log::open(options));
    pool =
        std::make_unique<WorkerPool>(null_backend(), spec, plan, SocketAddress{}, SocketAddress{});
    probe = std::make_unique<SystemProbe>(spec);
    timeline = std::make_unique<Timeline>(clock, *pool, *probe, *log, spec.output.interval_s);
  }
  std::string output() {
    std::fflush(sink);
    std::rewind(sink);
    std::string text;
    char buffer[4096];
    while (size_t n = std::fread(buffer, 1, sizeof buffer, sink)) text.append(buffer, n);
    return text;
  }
};

Backend& null_backend() {
  auto backend = find_backend("null");
  EXPECT_TRUE(backend.has_value());
  return **backend;
}

TEST(Lifecycle, NullSenderCountsInEveryFlowAndTheWindowClosesOnTime) {
  NullRun run;
  WorkerPool& pool = *run.pool;
  ASSERT_TRUE(pool.open_all(10s).has_value());
  Timeline& timeline = *run.timeline;
  pool.release();
  const MeasuredWindow window = timeline.run({0, 1, 1}, SteadyClock::now());
  const std::vector<WorkerReport> reports = pool.stop_and_join();

  ASSERT_TRUE(window.measured);
  EXPECT_FALSE(window.cut_short);
  EXPECT_GT(window.seconds, 0.0);
  ASSERT_EQ(window.begin.size(), 4u);
  for (size_t slot = 0; slot < 4; ++slot)
    EXPECT_GT(window.end[slot].bytes, window.begin[slot].bytes) << "slot " << slot;
  EXPECT_FALSE(window.intervals.empty());
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].connections + reports[1].connections, 4u);

  const std::string out = run.output();
  EXPECT_NE(out.find("Test run completed."), std::string::npos) << out;
  EXPECT_NE(out.find("Test cycle finished."), std::string::npos) << out;
}

TEST(Lifecycle, IntervalSamplesTileTheMeasuredWindowExactly) {
  NullRun run(0.25);
  WorkerPool& pool = *run.pool;
  ASSERT_TRUE(pool.open_all(10s).has_value());
  Timeline& timeline = *run.timeline;
  pool.release();
  const MeasuredWindow window = timeline.run({1, 1, 2}, SteadyClock::now());
  pool.stop_and_join();
  ASSERT_TRUE(window.measured);
  ASSERT_FALSE(window.intervals.empty());
  // No warm-up sample leaks in, none is missing at the end: they tile [0, seconds].
  EXPECT_DOUBLE_EQ(window.intervals.front().start_s, 0.0);
  double end = 0;
  for (const IntervalSample& sample : window.intervals) {
    EXPECT_NEAR(sample.start_s, end, 1e-9);
    end = sample.start_s + sample.seconds;
  }
  EXPECT_NEAR(end, window.seconds, 1e-9);
  EXPECT_NE(run.output().find("Test warmup completed."), std::string::npos);
}

// A loaded machine wakes the control thread after the warm-up's edge: the window still lasts its
// full duration (it is never shorter than -t, as the original's is not). Started 1.5 s in the
// past with 1 s of warm-up, the window opens 0.5 s late.
TEST(Lifecycle, AWindowOpenedLateKeepsItsFullLength) {
  NullRun run(0.25);
  WorkerPool& pool = *run.pool;
  ASSERT_TRUE(pool.open_all(10s).has_value());
  pool.release();
  const MeasuredWindow window = run.timeline->run({1, 1, 2}, SteadyClock::now() - 1500ms);
  pool.stop_and_join();
  ASSERT_TRUE(window.measured);
  EXPECT_FALSE(window.cut_short);
  EXPECT_GE(window.seconds, 1.0);
}

// -sam 2 over a 3 s window after 1 s of warm-up: ceil(3 / 2) = 2 samples (the last one shorter),
// each with its own edge snapshots; together they are exactly the window.
TEST(Lifecycle, SamplesSplitTheWindowAndTileItExactly) {
  NullRun run(0.25);
  WorkerPool& pool = *run.pool;
  ASSERT_TRUE(pool.open_all(10s).has_value());
  Timeline& timeline = *run.timeline;
  pool.release();
  const MeasuredWindow window = timeline.run({1, 3, 4, 2}, SteadyClock::now());
  pool.stop_and_join();
  ASSERT_TRUE(window.measured);
  ASSERT_EQ(window.samples.size(), 2u);
  const MeasuredWindow& first = window.samples[0];
  const MeasuredWindow& last = window.samples[1];
  EXPECT_TRUE(first.measured && last.measured);
  EXPECT_FALSE(last.cut_short);
  EXPECT_GE(first.seconds, 2.0);  // its edge is 2 s after the window's start, never earlier
  EXPECT_NEAR(first.seconds + last.seconds, window.seconds, 1e-9);
  ASSERT_EQ(first.begin.size(), window.begin.size());
  for (size_t slot = 0; slot < window.begin.size(); ++slot) {
    EXPECT_EQ(first.begin[slot].bytes, window.begin[slot].bytes) << "slot " << slot;
    EXPECT_EQ(first.end[slot].bytes, last.begin[slot].bytes) << "slot " << slot;
    EXPECT_EQ(last.end[slot].bytes, window.end[slot].bytes) << "slot " << slot;
    EXPECT_GT(first.end[slot].bytes, first.begin[slot].bytes) << "slot " << slot;
    EXPECT_GT(last.end[slot].bytes, last.begin[slot].bytes) << "slot " << slot;
  }
  EXPECT_EQ(first.system_begin.at, window.system_begin.at);
  EXPECT_EQ(first.system_end.at, last.system_begin.at);
  EXPECT_EQ(last.system_end.at, window.system_end.at);
  EXPECT_TRUE(first.samples.empty() && first.intervals.empty());
  // The interval ticks go on across the sample edge.
  double end = 0;
  for (const IntervalSample& sample : window.intervals) {
    EXPECT_NEAR(sample.start_s, end, 1e-9);
    end = sample.start_s + sample.seconds;
  }
  EXPECT_NEAR(end, window.seconds, 1e-9);
}

TEST(Lifecycle, WithoutSamplesTheWindowHasNone) {
  NullRun run;
  WorkerPool& pool = *run.pool;
  ASSERT_TRUE(pool.open_all(10s).has_value());
  Timeline& timeline = *run.timeline;
  pool.release();
  const MeasuredWindow window = timeline.run({0, 1, 1, 0}, SteadyClock::now());
  pool.stop_and_join();
  ASSERT_TRUE(window.measured);
  EXPECT_TRUE(window.samples.empty());
}

TEST(Lifecycle, CancelCutsTheCurrentSampleShort) {
  NullRun run;
  WorkerPool& pool = *run.pool;
  ASSERT_TRUE(pool.open_all(10s).has_value());
  PhaseClock& clock = run.clock;
  Timeline& timeline = *run.timeline;
  pool.release();
  std::thread canceller([&] {
    std::this_thread::sleep_for(50ms);
    clock.cancel(StopCause::sender_stopped, "peer stopped");
  });
  const MeasuredWindow window = timeline.run({0, 3600, 3600, 600}, SteadyClock::now());
  canceller.join();
  pool.stop_and_join();
  ASSERT_TRUE(window.cut_short);
  ASSERT_EQ(window.samples.size(), 1u);
  EXPECT_TRUE(window.samples[0].cut_short);
  EXPECT_NEAR(window.samples[0].seconds, window.seconds, 1e-9);
}

TEST(Lifecycle, AWatchThatReportsALostPeerCutsTheWindowShort) {
  NullRun run;
  WorkerPool& pool = *run.pool;
  ASSERT_TRUE(pool.open_all(10s).has_value());
  PhaseClock& clock = run.clock;
  Timeline& timeline = *run.timeline;
  timeline.set_watch([] {
    return std::optional<StopReason>({StopCause::receiver_left, "the receiver went away"});
  });
  pool.release();
  const MeasuredWindow window = timeline.run({0, 3600, 3600}, SteadyClock::now());
  pool.stop_and_join();
  EXPECT_TRUE(window.cut_short);
  EXPECT_EQ(clock.reason().message, "the receiver went away");
  EXPECT_EQ(clock.cause(), StopCause::receiver_left);
}

TEST(Lifecycle, CancelDuringTheWindowCutsItShortButKeepsIt) {
  NullRun run;
  WorkerPool& pool = *run.pool;
  ASSERT_TRUE(pool.open_all(10s).has_value());
  PhaseClock& clock = run.clock;
  Timeline& timeline = *run.timeline;
  pool.release();
  std::thread canceller([&] {
    std::this_thread::sleep_for(50ms);
    clock.cancel(StopCause::sender_stopped, "peer stopped");
  });
  const MeasuredWindow window = timeline.run({0, 3600, 3600}, SteadyClock::now());
  canceller.join();
  pool.stop_and_join();
  EXPECT_TRUE(window.measured);
  EXPECT_TRUE(window.cut_short);
}

TEST(Lifecycle, CancelDuringWarmupMeasuresNothing) {
  NullRun run;
  WorkerPool& pool = *run.pool;
  ASSERT_TRUE(pool.open_all(10s).has_value());
  PhaseClock& clock = run.clock;
  Timeline& timeline = *run.timeline;
  clock.cancel(StopCause::interrupted, "interrupted");
  const MeasuredWindow window = timeline.run({3600, 10, 3610}, SteadyClock::now());
  EXPECT_FALSE(window.measured);
}

TEST(ResultBuilder, SumsFlowsIntoNtttcpThreadRows) {
  TestSpec spec;
  spec.role = Role::sender;
  spec.layout.ports = 2;
  spec.layout.threads_per_port = 1;
  spec.layout.conns_per_thread = 2;  // 4 flows, 2 thread rows
  Plan plan = *make_plan(spec, {0});
  MeasuredWindow window;
  window.measured = true;
  window.seconds = 2.0;
  window.begin = {{100, 1}, {200, 1}, {0, 0}, {0, 0}};
  window.end = {{1100, 11}, {1200, 11}, {3000, 3}, {0, 0}};
  WorkerReport report;
  report.connections = 4;
  ConnectionStats a, b;
  a.rtt_us = 100;
  a.total_retrans = 2;
  b.rtt_us = 300;
  b.total_retrans = 1;
  report.connection_stats = {a, b};

  RunFacts facts{&spec, &plan, "null", {}, 2, 2};
  const Result r = build_result(facts, window, {report});
  EXPECT_EQ(r.total_bytes, 5000u);
  EXPECT_EQ(r.total_operations, 23u);
  ASSERT_EQ(r.threads.size(), 2u);
  EXPECT_EQ(r.threads[0].bytes, 2000u);
  EXPECT_EQ(r.threads[1].bytes, 3000u);
  EXPECT_EQ(r.connections_tested, 4u);
  EXPECT_EQ(r.tcp_info_retransmits, 3u);
  EXPECT_EQ(r.tcp_average_rtt_us, 200u);
  EXPECT_DOUBLE_EQ(r.throughput_bps(), 5000.0 * 8 / 2.0);
  EXPECT_EQ(r.backend, "null");
  EXPECT_EQ(r.cpu_mapping, "worker 0 -> any cpu");
}

// -sam: one Result per sample from its own edges, and the totals from the whole window.
TEST(ResultBuilder, EverySampleIsAResultOfItsOwnWindow) {
  TestSpec spec;
  spec.role = Role::sender;
  spec.layout.ports = 2;
  spec.layout.threads_per_port = 1;
  Plan plan = *make_plan(spec, {0});
  MeasuredWindow window;
  window.measured = true;
  window.seconds = 3.0;
  window.begin = {{0, 0}, {0, 0}};
  window.end = {{3000, 30}, {6000, 60}};
  MeasuredWindow first, second;
  first.measured = second.measured = true;
  first.seconds = 2.0;
  second.seconds = 1.0;
  first.begin = window.begin;
  first.end = second.begin = {{1000, 10}, {5000, 50}};
  second.end = window.end;
  window.samples = {first, second};
  ConnectionStats connection;
  connection.total_retrans = 4;
  WorkerReport report;
  report.connections = 2;
  report.connection_stats = {connection};
  report.notes = {"a note"};

  RunFacts facts{&spec, &plan, "null", {}, 3, 1};
  const Result r = build_result(facts, window, {report});
  EXPECT_EQ(r.total_bytes, 9000u);
  ASSERT_EQ(r.samples.size(), 2u);
  EXPECT_EQ(r.samples[0].total_bytes, 6000u);
  EXPECT_EQ(r.samples[0].total_operations, 60u);
  EXPECT_DOUBLE_EQ(r.samples[0].duration_s, 2.0);
  ASSERT_EQ(r.samples[0].threads.size(), 2u);
  EXPECT_EQ(r.samples[0].threads[0].bytes, 1000u);
  EXPECT_EQ(r.samples[0].threads[1].bytes, 5000u);
  EXPECT_DOUBLE_EQ(r.samples[0].threads[1].seconds, 2.0);
  EXPECT_EQ(r.samples[1].total_bytes, 3000u);
  EXPECT_EQ(r.samples[1].threads[0].bytes, 2000u);
  EXPECT_EQ(r.samples[1].threads[1].bytes, 1000u);
  EXPECT_DOUBLE_EQ(r.samples[1].throughput_bps(), 3000.0 * 8);
  // Run-wide figures stay with the totals.
  EXPECT_EQ(r.tcp_info_retransmits, 4u);
  EXPECT_EQ(r.samples[1].tcp_info_retransmits, 0u);
  EXPECT_TRUE(r.samples[1].notes.empty() && r.samples[1].connections.empty());
  EXPECT_EQ(r.samples[1].spec.layout.ports, 2u);
  EXPECT_EQ(r.samples[1].backend, "null");
  EXPECT_TRUE(r.samples[1].samples.empty());
}

}  // namespace
}  // namespace xttcp
