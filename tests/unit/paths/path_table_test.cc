// compare-paths' arithmetic on synthetic results with answers worked out by hand: a run's
// figures (cycles from both processes' CPU time), medians over runs, ratios against epoll, and
// the console table and JSON against golden files (tests/golden/paths).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>

#include "tests/unit/golden_file.hh"
#include "tools/paths/path_table.hh"

namespace xttcp {
namespace {

void expect_golden(const std::string& name, const std::string& actual) {
  test::expect_golden_in("paths", name, actual);
}

// A TCP stream sender of `bytes` in 2 s using `cpu_s` of CPU, whose receiver used `peer_cpu_s`.
Result stream_sender(uint64_t bytes, double cpu_s, double peer_cpu_s) {
  Result r;
  r.role = Role::sender;
  r.duration_s = 2;
  r.total_bytes = bytes;
  r.cpu.process_user_s = cpu_s / 2;
  r.cpu.process_system_s = cpu_s / 2;
  auto peer = std::make_shared<Result>();
  peer->role = Role::receiver;
  peer->duration_s = 2;
  peer->total_bytes = bytes;
  peer->cpu.process_system_s = peer_cpu_s;
  r.peer = peer;
  return r;
}

Result rr_requester(uint64_t transactions, double cpu_s, uint64_t p50_ns, uint64_t p99_ns) {
  Result r;
  r.role = Role::sender;
  r.duration_s = 1;
  r.total_bytes = transactions * 128;  // 64 B each way
  r.cpu.process_user_s = cpu_s;
  RrResult rr;
  rr.transactions = transactions;
  rr.transactions_per_s = static_cast<double>(transactions);
  rr.latency.count = transactions;
  rr.latency.p50_ns = p50_ns;
  rr.latency.p99_ns = p99_ns;
  rr.latency.p999_ns = 2 * p99_ns;
  r.rr = rr;
  auto peer = std::make_shared<Result>();
  peer->role = Role::receiver;
  peer->cpu.process_user_s = cpu_s;
  r.peer = peer;
  return r;
}

TEST(PathRun, StreamCyclesCountBothProcesses) {
  // 1 GB in 2 s; 1.5 s + 0.5 s of CPU at 1000 MHz: 2e9 cycles / 1e9 bytes.
  const PathRun run =
      path_run_from_result(stream_sender(1'000'000'000, 1.5, 0.5), CycleUnit::byte, 1000);
  EXPECT_DOUBLE_EQ(run.throughput_gbps, 4.0);
  EXPECT_DOUBLE_EQ(run.cpu_s, 2.0);
  EXPECT_TRUE(run.peer_cpu);
  ASSERT_TRUE(run.cycles_per_unit);
  EXPECT_DOUBLE_EQ(*run.cycles_per_unit, 2.0);
  ASSERT_TRUE(run.cpu_s_per_gb);
  EXPECT_DOUBLE_EQ(*run.cpu_s_per_gb, 2.0);
  EXPECT_FALSE(run.packets_per_s);
  EXPECT_FALSE(run.p50_us);
}

// A stream_sender whose host's ksoftirqd time each end measured (nullopt: that end did not).
Result with_softirq_threads(std::optional<double> sender_s, std::optional<double> receiver_s) {
  Result r = stream_sender(1'000'000'000, 1.5, 0.5);
  auto peer = std::make_shared<Result>(*r.peer);
  peer->cpu.softirq_threads_s = receiver_s;
  r.peer = peer;
  r.cpu.softirq_threads_s = sender_s;
  return r;
}

TEST(PathRun, SoftirqThreadsCountOnceForTheHost) {
  // Both ends ran on this host: its ksoftirqd time is added once, the sender's window first.
  PathRun run = path_run_from_result(with_softirq_threads(0.25, 0.75), CycleUnit::byte, 1000);
  EXPECT_DOUBLE_EQ(run.cpu_s, 2.25);
  ASSERT_TRUE(run.softirq_threads_s);
  EXPECT_DOUBLE_EQ(*run.softirq_threads_s, 0.25);
  EXPECT_DOUBLE_EQ(*run.cpu_s_per_gb, 2.25);
  EXPECT_DOUBLE_EQ(*run.cycles_per_unit, 2.25);
  // Only the receiver measured them.
  run = path_run_from_result(with_softirq_threads(std::nullopt, 0.75), CycleUnit::byte, 1000);
  EXPECT_DOUBLE_EQ(run.cpu_s, 2.75);
  // Nobody did (Windows): the processes alone.
  run =
      path_run_from_result(with_softirq_threads(std::nullopt, std::nullopt), CycleUnit::byte, 1000);
  EXPECT_DOUBLE_EQ(run.cpu_s, 2.0);
  EXPECT_FALSE(run.softirq_threads_s);
}

TEST(PathRun, UdpCountsWhatTheReceiverGot) {
  Result sender = stream_sender(0, 1, 1);
  sender.total_bytes = 3'000'000;  // sent; the receiver got a third of it
  auto peer = std::make_shared<Result>(*sender.peer);
  peer->total_bytes = 1'000'000;
  UdpResult udp;
  udp.window_datagrams = 1000;
  udp.window_pps = 500;
  peer->udp = udp;
  sender.peer = peer;
  const PathRun run = path_run_from_result(sender, CycleUnit::packet, 2000);
  EXPECT_DOUBLE_EQ(run.throughput_gbps, 0.004);
  ASSERT_TRUE(run.packets_per_s);
  EXPECT_DOUBLE_EQ(*run.packets_per_s, 500);
  EXPECT_DOUBLE_EQ(*run.cycles_per_unit, 2 * 2000e6 / 1000);
}

TEST(PathRun, RrPerTransactionAndPercentiles) {
  const PathRun run = path_run_from_result(rr_requester(10'000, 0.25, 20'000, 40'000),
                                           CycleUnit::transaction, 1000);
  EXPECT_DOUBLE_EQ(*run.packets_per_s, 10'000);
  EXPECT_DOUBLE_EQ(*run.cycles_per_unit, 0.5 * 1e9 / 10'000);
  EXPECT_DOUBLE_EQ(*run.p50_us, 20);
  EXPECT_DOUBLE_EQ(*run.p99_us, 40);
  EXPECT_DOUBLE_EQ(*run.p999_us, 80);
}

TEST(PathRun, NoClockNoCycles) {
  const PathRun run = path_run_from_result(stream_sender(1000, 1, 1), CycleUnit::byte, 0);
  EXPECT_FALSE(run.cycles_per_unit);
  EXPECT_TRUE(run.cpu_s_per_gb);
}

TEST(PathRun, ReceiverThatSharedNothing) {
  Result sender = stream_sender(1'000'000'000, 1, 1);
  sender.peer.reset();
  const PathRun run = path_run_from_result(sender, CycleUnit::byte, 1000);
  EXPECT_FALSE(run.peer_cpu);
  EXPECT_DOUBLE_EQ(run.cpu_s, 1);
}

PathTable stream_table() {
  PathTable t;
  t.workload = {Protocol::tcp, false, 131072, 0, 1, 1, 1, 2, 3};
  t.unit = CycleUnit::byte;
  t.clock_mhz = 1000;
  t.clock_source = "the first \"cpu MHz\" of /proc/cpuinfo";
  t.tool_version = "0.1.0 (test)";
  t.cpu_model = "Test CPU @ 1.00GHz";
  t.cpus = 2;
  PathRow epoll, uring;
  epoll.backend = "epoll";
  uring.backend = "io_uring";
  // epoll: 4, 5, 6 Gbit/s at 1 cycle/B; io_uring: 6, 7.5, 9 Gbit/s at 0.5 cycle/B.
  for (uint64_t gb : {1'000'000'000ull, 1'250'000'000ull, 1'500'000'000ull}) {
    const double cpu = static_cast<double>(gb) / 1e9;
    epoll.runs.push_back(path_run_from_result(stream_sender(gb, cpu / 2, cpu / 2), t.unit, 1000));
    uring.runs.push_back(
        path_run_from_result(stream_sender(gb * 3 / 2, cpu * 0.375, cpu * 0.375), t.unit, 1000));
  }
  t.rows = {epoll, uring};
  t.notes = {
      "machine load: load average 3.00 2.50 2.00 (2 CPUs online) before, load average "
      "3.10 2.60 2.10 (2 CPUs online) after (other processes share the CPUs: compare rows "
      "of one run, not across runs)"};
  summarize_rows(t);
  return t;
}

TEST(PathTable, MediansAndRatiosAgainstEpoll) {
  const PathTable t = stream_table();
  EXPECT_DOUBLE_EQ(t.rows[0].throughput_gbps.median, 5);
  EXPECT_DOUBLE_EQ(t.rows[1].throughput_gbps.median, 7.5);
  EXPECT_DOUBLE_EQ(*t.rows[0].vs_baseline.throughput_gbps, 1);
  EXPECT_DOUBLE_EQ(*t.rows[1].vs_baseline.throughput_gbps, 1.5);
  EXPECT_NEAR(*t.rows[1].vs_baseline.cycles_per_unit, 0.5, 1e-12);
  EXPECT_NEAR(*t.rows[1].vs_baseline.cpu_s_per_gb, 0.5, 1e-12);
  EXPECT_FALSE(t.rows[1].vs_baseline.packets_per_s);  // a TCP stream counts no packets
  EXPECT_FALSE(t.rows[1].vs_baseline.p50_us);
}

TEST(PathTable, NoBaselineNoRatios) {
  PathTable t = stream_table();
  t.rows.erase(t.rows.begin());
  summarize_rows(t);
  EXPECT_FALSE(t.rows[0].vs_baseline.throughput_gbps);
  EXPECT_DOUBLE_EQ(t.rows[0].throughput_gbps.median, 7.5);
}

TEST(PathTable, BaselineNeedNotRunFirst) {
  PathTable t = stream_table();
  std::swap(t.rows[0], t.rows[1]);
  summarize_rows(t);
  EXPECT_DOUBLE_EQ(*t.rows[0].vs_baseline.throughput_gbps, 1.5);
}

PathTable rr_table() {
  PathTable t;
  t.workload = {Protocol::udp, true, 64, 64, 1, 1, 1, 1, 2};
  t.unit = CycleUnit::transaction;
  t.clock_mhz = 1000;
  t.clock_source = "the first \"cpu MHz\" of /proc/cpuinfo";
  t.tool_version = "0.1.0 (test)";
  t.cpu_model = "Test CPU @ 1.00GHz";
  t.cpus = 2;
  PathRow epoll, uring;
  epoll.backend = "epoll";
  uring.backend = "io_uring";
  epoll.runs = {path_run_from_result(rr_requester(40'000, 0.4, 20'000, 50'000), t.unit, 1000),
                path_run_from_result(rr_requester(60'000, 0.6, 30'000, 70'000), t.unit, 1000)};
  uring.runs = {path_run_from_result(rr_requester(45'000, 0.3, 18'000, 60'000), t.unit, 1000),
                path_run_from_result(rr_requester(55'000, 0.5, 22'000, 80'000), t.unit, 1000)};
  t.rows = {epoll, uring};
  summarize_rows(t);
  return t;
}

TEST(PathTable, RrRatiosOfPercentiles) {
  const PathTable t = rr_table();
  EXPECT_DOUBLE_EQ(t.rows[0].p50_us.median, 25);
  EXPECT_DOUBLE_EQ(t.rows[1].p50_us.median, 20);
  EXPECT_DOUBLE_EQ(*t.rows[1].vs_baseline.p50_us, 0.8);
  EXPECT_DOUBLE_EQ(*t.rows[1].vs_baseline.p99_us, 70.0 / 60.0);
  EXPECT_DOUBLE_EQ(*t.rows[1].vs_baseline.packets_per_s, 1.0);
}

TEST(PathTable, ClockLineSaysWhoseCpuTimeTheCyclesCount) {
  auto clock_line = [](const PathTable& t) {
    const std::string out = render_paths_table(t);
    const size_t at = out.find("cycles: ");
    return out.substr(at, out.find('\n', at) - at);
  };
  PathTable t = stream_table();
  EXPECT_NE(clock_line(t).find("CPU time of both processes x 1000.0 MHz"), std::string::npos);
  for (PathRow& row : t.rows)
    for (PathRun& run : row.runs) run.softirq_threads_s = 0.1;
  EXPECT_NE(clock_line(t).find("CPU time of both processes and ksoftirqd x 1000.0 MHz"),
            std::string::npos)
      << clock_line(t);
  t.rows[1].runs[2].softirq_threads_s.reset();  // one run could not read a thread
  EXPECT_NE(clock_line(t).find("and ksoftirqd (measured in 5 of 6 runs) x"), std::string::npos)
      << clock_line(t);
}

TEST(PathTable, GoldenConsole) {
  expect_golden("stream.txt", render_paths_table(stream_table()));
  expect_golden("rr.txt", render_paths_table(rr_table()));
}

TEST(PathTable, GoldenJson) {
  expect_golden("stream.json", render_paths_json(stream_table()));
  expect_golden("rr.json", render_paths_json(rr_table()));
}

// -W: the console's workload line and the JSON's workload say the warm-up (calibrate's runs).
TEST(PathTable, GoldenWarmup) {
  PathTable table = stream_table();
  table.workload.warmup_s = 1;
  expect_golden("stream-warmup.txt", render_paths_table(table));
  expect_golden("stream-warmup.json", render_paths_json(table));
}

}  // namespace
}  // namespace xttcp
