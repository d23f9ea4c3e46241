// The NTttcp-for-Windows console renderer: byte-for-byte against the reference samples and
// against golden files (regenerate with XTTCP_UPDATE_GOLDEN=1 meson test unit-report).
#include "engine/report/windows_console.hh"

#include <gtest/gtest.h>

#include "engine/report/windows_figures.hh"
#include "tests/unit/report/golden.hh"
#include "tests/unit/report/windows_sample_results.hh"

namespace xttcp {
namespace {

using test::expect_golden;
using test::read_sample;
using test::without_carriage_returns;

// The samples were captured on Windows (Wine): "\r\n" line ends, which our "\n" becomes there.
// What the original prints before the results: its banner and the progress line.
std::string original_preamble() {
  return "Copyright Version 5.40\n" + std::string(windows_progress_line) + "\n";
}

TEST(WindowsConsole, SenderMatchesSample) {
  auto sample = read_sample("windows-sender-console.txt");
  if (!sample) GTEST_SKIP() << "reference samples not available";
  EXPECT_EQ(without_carriage_returns(*sample),
            original_preamble() + render_windows_console(test::sample_windows_sender_console()));
}

TEST(WindowsConsole, ReceiverMatchesSample) {
  auto sample = read_sample("windows-receiver-console.txt");
  if (!sample) GTEST_SKIP() << "reference samples not available";
  EXPECT_EQ(without_carriage_returns(*sample),
            original_preamble() + render_windows_console(test::sample_windows_receiver_console()));
}

TEST(WindowsConsole, SenderGolden) {
  expect_golden("windows-sender-console.txt",
                render_windows_console(test::sample_windows_sender_console()));
}

TEST(WindowsConsole, UnavailableFiguresAreNaGolden) {
  expect_golden("windows-receiver-linux-console.txt",
                render_windows_console(test::linux_windows_receiver()));
}

TEST(WindowsConsole, UnavailableFiguresAreNaNotZero) {
  const std::string text = render_windows_console(test::linux_windows_receiver());
  // DPCs and packets per DPC / interrupt, all "NA" in their 13-wide columns.
  EXPECT_NE(text.find("           NA            NA              NA             NA\n"),
            std::string::npos)
      << text;
  // Packets, errors: NA; retransmits are counted (0); CPU is measured.
  EXPECT_NE(text.find("          NA               NA           0     NA     37.500\n"),
            std::string::npos)
      << text;
  // Per-thread completions unknown: the Avg B / Compl column says so.
  EXPECT_NE(text.find("     0   10.000      1023989.658            NA\n"), std::string::npos)
      << text;
}

TEST(WindowsConsole, LatencyColumnsGolden) {
  Result r = test::sample_windows_sender_console();
  r.spec = test::windows_spec("-s -m 2,*,127.0.0.1 -t 5 -lm");
  r.threads[0].seconds = 5.01;
  r.threads[1].seconds = 5.02;
  r.threads[0].latency = IoLatency{12000.4, 800, 250000};
  r.threads[1].latency = IoLatency{14000.6, 900, 300000};
  r.latency = IoLatency{13000.5, 800, 300000};
  expect_golden("windows-sender-latency-console.txt", render_windows_console(r));
}

// The totals are the Result's own (the result builder combines the calls of every thread,
// tests/unit/engine/latency_result_test.cc); without them the line says NA.
TEST(WindowsConsole, LatencyTotalsComeFromTheResult) {
  Result r = test::sample_windows_sender_console();
  r.spec.io.time_each_call = true;
  r.threads[0].latency = IoLatency{100, 10, 200, 1};
  r.threads[1].latency = IoLatency{200, 20, 400, 3};
  EXPECT_FALSE(windows_figures(r).latency.has_value());
  EXPECT_NE(render_windows_console(r).find("\nLatency(ns)\n       Avg        Min        Max\n"
                                           "========== ========== ==========\n"
                                           "        NA         NA         NA\n"),
            std::string::npos)
      << render_windows_console(r);
  r.latency = IoLatency{175, 10, 400, 4};
  const WindowsFigures f = windows_figures(r);
  ASSERT_TRUE(f.latency.has_value());
  EXPECT_DOUBLE_EQ(f.latency->average_ns, 175);
  EXPECT_DOUBLE_EQ(f.latency->min_ns, 10);
  EXPECT_DOUBLE_EQ(f.latency->max_ns, 400);
  r.spec.io.time_each_call = false;  // not asked for: no figures, no line
  EXPECT_FALSE(windows_figures(r).latency.has_value());
  EXPECT_EQ(render_windows_console(r).find("Latency(ns)"), std::string::npos);
}

TEST(WindowsConsole, HidePerThreadAndCpuNoteGolden) {
  Result r = test::sample_windows_receiver_console();
  r.spec = test::windows_spec("-r -m 2,*,127.0.0.1 -t 5 -hpt");
  test::set_cpu(r, 0, 0);
  const std::string text = render_windows_console(r);
  EXPECT_EQ(text.find("Thread"), std::string::npos);
  EXPECT_TRUE(
      text.ends_with("\n\nNOTE::Avg CPU% drops below 0% if test duration is too short\n\n"));
  expect_golden("windows-receiver-hpt-note-console.txt", text);
}

TEST(WindowsConsole, CpuNoteOnlyForAMeasuredFigure) {
  Result r = test::sample_windows_receiver_console();
  EXPECT_EQ(windows_cpu_note(r), "");
  test::set_cpu(r, 0, 0);
  EXPECT_NE(windows_cpu_note(r), "");
  r.cpu = CpuSplit{};  // never read: "NA", and no note about it
  EXPECT_EQ(windows_cpu_note(r), "");
  EXPECT_NE(render_windows_console(r).find("         NA\n"), std::string::npos);
}

TEST(WindowsConsole, CyclesPerByteNeedsAClockRate) {
  Result r = test::sample_windows_receiver_console();
  r.host.cpu_mhz = 0;
  EXPECT_FALSE(windows_figures(r).cycles_per_byte.has_value());
  EXPECT_NE(render_windows_console(r).find("             4006.022          NA     20107.721\n"),
            std::string::npos);
}

TEST(WindowsConsole, UdpHasNoRetransmits) {
  Result r = test::sample_windows_receiver_console();
  r.spec.workload.protocol = Protocol::udp;
  r.tcp.retrans_segs = 7;
  EXPECT_EQ(windows_figures(r).retransmits, 0u);
}

TEST(WindowsConsole, BannerNamesBothVersions) {
  EXPECT_TRUE(windows_banner_line().starts_with("Copyright Version 5.40 (xttcp "));
}

}  // namespace
}  // namespace xttcp
