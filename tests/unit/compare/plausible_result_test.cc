// The figures no run can produce (engine/report/plausible_result): each rule refuses its absurd
// figure in one line naming the field, lets every real figure through, and applies to result
// files (read back by parse_native_runs, as compare and report read them) and peer frames.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "engine/report/native_json.hh"
#include "engine/report/native_runs.hh"
#include "engine/report/plausible_result.hh"

namespace xttcp {
namespace {

// A sender's run as a real one looks: 10 s at 10 Gbit/s over TCP.
Result real_run() {
  Result r;
  r.role = Role::sender;
  r.backend = "epoll";
  r.duration_s = 10;
  r.total_bytes = 12'500'000'000;
  r.total_operations = 190'000;
  r.cpu = CpuSplit{3.5, 20.1, 70.2, 0.1, 6.1, 1.67, 45.0, 0.9, 3.6};
  r.threads.push_back(ThreadResult{0, 10, 12'500'000'000, 190'000, std::nullopt});
  r.intervals.push_back(IntervalSample{0, 0.5, 625'000'000});
  r.intervals.push_back(IntervalSample{9.999999999, 1e-9, 65536});  // edges 1 ns apart
  r.host.cpu_mhz = 2100;
  return r;
}

std::string refusal(const Result& r, PlausibilityRules rules = result_file_rules) {
  const Status status = check_plausible(r, rules);
  return status ? "" : status.error().message;
}

struct Absurd {
  const char* what;
  std::function<void(Result&)> make;
  const char* message;  // the start of the one line
};

const Absurd absurd_figures[] = {
    {"a window of 0 s in a file", [](Result& r) { r.duration_s = 0; },
     "summary.duration_s: 0 s: the run measured no window"},
    {"a negative window", [](Result& r) { r.duration_s = -1; },
     "summary.duration_s: -1 s is not a measured time"},
    {"a window of 1e-300 s", [](Result& r) { r.duration_s = 1e-300; },
     "summary.duration_s: 1e-300 s is not a measured time (0, or 1e-09 to 1e+09 s)"},
    {"an endless window", [](Result& r) { r.duration_s = std::numeric_limits<double>::infinity(); },
     "summary.duration_s: inf s is not a measured time"},
    {"NaN", [](Result& r) { r.duration_s = std::nan(""); }, "summary.duration_s: nan s"},
    {"2^64 - 1 bytes", [](Result& r) { r.total_bytes = ~uint64_t{0}; },
     "summary.total_bytes: 18446744073709551615 is not a count (2^63 or more"},
    {"4e18 bit/s", [](Result& r) { r.total_bytes = 499'935'375'250'000'000 * 10; },
     "summary.total_bytes: 4999353752500000000 bytes in 10 s is 4e+18 bit/s, above the ceiling "
     "of 1e+13 bit/s"},
    {"CPU 1e308 %", [](Result& r) { r.cpu.user = 1e308; },
     "cpu.user_pct: 1e+308 is outside 0 to 100"},
    {"a negative CPU share", [](Result& r) { r.cpu.idle = -0.5; },
     "cpu.idle_pct: -0.5 is outside 0 to 100"},
    {"cycles/byte 1e308", [](Result& r) { r.cpu.cycles_per_byte = 1e308; },
     "cpu.cycles_per_byte: 1e+308 is outside 0 to 1e+15"},
    {"process busy past 8192 CPUs", [](Result& r) { r.cpu.process_busy = 1e7; },
     "cpu.process_busy_pct: 10000000 is outside 0 to 819200"},
    {"a thread's window", [](Result& r) { r.threads[0].seconds = 1e-300; },
     "threads[].seconds: 1e-300 s"},
    {"an interval's bytes", [](Result& r) { r.intervals[0].bytes = ~uint64_t{0}; },
     "intervals[].bytes: 18446744073709551615 is not a count"},
    {"an interval before time", [](Result& r) { r.intervals[0].start_s = -1e300; },
     "intervals[].start_s: -1e+300 is outside -1e+09 to 1e+09"},
    {"retransmits of -1", [](Result& r) { r.tcp.retrans_segs = ~uint64_t{0}; },
     "tcp.retrans_segs: 18446744073709551615 is not a count"},
    {"NIC packets past the packet rate",
     [](Result& r) {
       r.nic = NicPackets{"eth0", 400'000'000'000, 0};
     },
     "nic.tx_packets: 400000000000 packets in 10 s is 2.05e+13 bit/s"},
    {"UDP loss of 2.1e12 %",
     [](Result& r) {
       r.udp = UdpResult{};
       r.udp->loss_percent = 2.1e12;
     },
     "udp.run.loss_percent: 2100000000000 is outside 0 to 100"},
    {"UDP datagrams in no time",
     [](Result& r) {
       r.udp = UdpResult{};
       r.udp->window_pps = 1e300;
     },
     "udp.window.pps: 1e+300 is outside 0 to"},
    {"a latency of 1e308 ns",
     [](Result& r) {
       r.latency = IoLatency{1e308, 0, 0, 1};
     },
     "summary.latency.average_ns: 1e+308 is outside 0 to 1e+15"},
    {"a connection's bytes", [](Result& r) { r.connections.push_back({.bytes = ~uint64_t{0}}); },
     "connections[].bytes: 18446744073709551615 is not a count"},
    {"a sample's window",
     [](Result& r) {
       Result sample;
       sample.duration_s = 1e-300;
       r.samples.push_back(sample);
     },
     "samples[0].summary.duration_s: 1e-300 s"},
    {"the peer's bytes",
     [](Result& r) {
       Result peer = real_run();
       peer.role = Role::receiver;
       peer.total_bytes = ~uint64_t{0};
       r.peer = std::make_shared<const Result>(peer);
     },
     "peer.summary.total_bytes: 18446744073709551615 is not a count"},
};

TEST(PlausibleResult, ARealRunPasses) {
  EXPECT_EQ(refusal(real_run()), "");
  EXPECT_EQ(refusal(real_run(), peer_frame_rules), "");
}

TEST(PlausibleResult, EachAbsurdFigureIsRefusedInOneLineNamingItsField) {
  for (const Absurd& a : absurd_figures) {
    Result r = real_run();
    a.make(r);
    const std::string message = refusal(r);
    EXPECT_EQ(message.rfind(a.message, 0), 0u) << a.what << ": " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << a.what;
  }
}

TEST(PlausibleResult, APeerFrameMayHaveMeasuredNothing) {
  Result nothing;  // a test stopped before its window: 0 s, nothing counted
  nothing.role = Role::receiver;
  EXPECT_EQ(refusal(nothing, peer_frame_rules), "");
  nothing.total_bytes = 5;
  EXPECT_EQ(refusal(nothing, peer_frame_rules), "summary.total_bytes: 5 bytes in a window of 0 s");
  // A file's run must have a window to be compared or drawn.
  EXPECT_NE(refusal(Result{}), "");
}

TEST(PlausibleResult, OnlyAFileOfTheNullBackendMayCountPastThePhysicalCeiling) {
  Result counted = real_run();
  counted.backend = "null";
  counted.total_bytes = 2'000'000'000'000'000;  // 1.6 Pbit/s over 10 s: buffers never moved
  EXPECT_EQ(refusal(counted), "");
  EXPECT_NE(refusal(counted, peer_frame_rules), "");  // a peer's crossed a network
  counted.backend = "epoll";
  EXPECT_NE(refusal(counted), "");
  counted.backend = "null";
  counted.total_bytes = 2'000'000'000'000'000'000;  // 1.6e18 bit/s: past even counting
  EXPECT_NE(refusal(counted), "");
}

TEST(PlausibleResult, TheFileReaderRefusesEachRunByIndex) {
  RunSet set;
  set.runs = {real_run(), real_run()};
  set.runs[1].duration_s = 1e-300;
  auto back = parse_native_runs(render_native_runs(set));
  ASSERT_FALSE(back);
  EXPECT_EQ(back.error().message.rfind("runs[1]: summary.duration_s: 1e-300 s", 0), 0u)
      << back.error().message;
  Result single = real_run();  // a file of one run (without --repeat)
  single.total_bytes = ~uint64_t{0};
  auto one = parse_native_runs(render_native_json(single));
  ASSERT_FALSE(one);
  EXPECT_EQ(one.error().message.rfind("summary.total_bytes: 18446744073709551615", 0), 0u)
      << one.error().message;
}

TEST(PlausibleResult, NumbersPastADoubleAreNoJson) {
  // So no file carries an infinity; a finite 1e308 is what the rules above are for.
  auto big = parse_native_runs(R"({"schema":"xttcp-result","schema_version":1,"role":"sender",)"
                               R"("summary":{"duration_s":1e999,"total_bytes":1}})");
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().message, "result file: not valid JSON");
}

}  // namespace
}  // namespace xttcp
