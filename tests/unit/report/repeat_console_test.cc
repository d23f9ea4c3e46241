// --repeat's summary block on the console (engine/report/repeat_console.hh), golden-tested: the
// figures are --json's "statistics" (run_set_statistics), and the block never carries a label
// that NTTTCP's parsers read from the Totals block.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>

#include "engine/analysis/run_set_statistics.hh"
#include "engine/report/repeat_console.hh"
#include "engine/rr_result.hh"
#include "tests/unit/report/golden.hh"
#include "tests/unit/report/sample_results.hh"

namespace xttcp {
namespace {

using test::expect_golden;
using test::join_lines;

// The sample sender measured again with another byte count, retransmit count and cycles/byte;
// its receiver's figures as its peer.
Result sender_run(uint64_t bytes, uint64_t retrans, double cycles_per_byte) {
  Result r = test::sample_sender_verbose();
  r.total_bytes = bytes;
  r.tcp.retrans_segs = retrans;
  r.cpu.cycles_per_byte = cycles_per_byte;
  Result peer = test::sample_receiver();
  peer.total_bytes = bytes - 1'000'000;
  r.peer = std::make_shared<Result>(peer);
  return r;
}

std::vector<Result> three_runs() {
  return {sender_run(19'874'971'648, 81, 1.6713), sender_run(18'500'000'000, 12, 1.81),
          sender_run(20'125'000'000, 0, 1.59)};
}

TEST(RepeatConsole, SummaryOfThreeTests) {
  expect_golden("repeat-summary.txt", join_lines(repeat_summary_lines(three_runs(), 3)));
}

TEST(RepeatConsole, SummarySaysHowManyOfTheRequestedRan) {
  std::vector<Result> runs = three_runs();
  runs.resize(2);
  runs[1].cut_short = true;
  runs[1].stop.message = "interrupted by signal";
  expect_golden("repeat-summary-two-of-four.txt", join_lines(repeat_summary_lines(runs, 4)));
}

TEST(RepeatConsole, OneRunHasNoInterval) {
  std::vector<Result> runs = three_runs();
  runs.resize(1);
  const std::vector<std::string> lines = repeat_summary_lines(runs, 1);
  ASSERT_GE(lines.size(), 4u);
  EXPECT_NE(lines[3].find("- (one run)"), std::string::npos) << lines[3];
}

TEST(RepeatConsole, RrTestsShowTransactionsAndRoundTrips) {
  std::vector<Result> runs;
  for (double rate : {1000.0, 1100.0}) {
    Result r = test::sample_sender_verbose();
    r.spec.rr.on = true;
    RrResult rr;
    rr.transactions_per_s = rate;
    rr.latency.count = 10;
    rr.latency.p50_ns = 25'500;
    rr.latency.p99_ns = 80'250;
    r.rr = rr;
    runs.push_back(r);
  }
  expect_golden("repeat-summary-rr.txt", join_lines(repeat_summary_lines(runs, 2)));
}

TEST(RepeatConsole, TheTableHoldsTheSameFiguresAsTheJsonStatistics) {
  const std::vector<Result> runs = three_runs();
  const std::vector<std::string> lines = repeat_summary_lines(runs, 3);
  for (const MetricStatistics& m : run_set_statistics(runs)) {
    if (m.summary.median < 1 || m.summary.median >= 1000) continue;  // other roundings
    const auto row = std::find_if(lines.begin(), lines.end(), [&](const std::string& line) {
      return line.rfind(m.metric->label, 0) == 0;
    });
    ASSERT_NE(row, lines.end()) << m.metric->label;
    EXPECT_NE(row->find(fmt::format("{:.2f}", m.summary.median)), std::string::npos) << *row;
  }
}

TEST(RepeatConsole, NoLabelOfNtttcpsTotalsBlock) {
  // LISA and NTTTCP's own tests read the first Totals block and count these labels.
  for (const std::string& line : repeat_summary_lines(three_runs(), 3))
    for (const char* label : {"Totals:", "test duration\t:", "total bytes\t:", "\t throughput\t:",
                              "\t cycles/byte\t:", "retrans segs\t:", "cpu busy (all)\t:"})
      EXPECT_EQ(line.find(label), std::string::npos) << line;
}

}  // namespace
}  // namespace xttcp
