// --csv and --json-stream: the intervals of a TCP sender and a UDP receiver, as CSV and as the
// NDJSON stream (golden files), and the stream's lines each a JSON object.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "engine/report/interval_csv.hh"
#include "engine/report/interval_stream.hh"
#include "tests/unit/report/golden.hh"
#include "tests/unit/report/sample_results.hh"

namespace xttcp {
namespace {

using test::expect_golden;

Result udp_intervals() {
  Result r = test::sample_receiver();
  r.spec.workload.protocol = Protocol::udp;
  r.intervals = {{0.0, 0.5, 735000000, 500000, 1200, 3, 41000},
                 {0.5, 0.5, 735000000, 500000, 0, 0, 38000}};
  r.udp = UdpResult{};
  return r;
}

// What the stream writes for `r`: every interval, then its end.
std::string streamed(const Result& r) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("xttcp-interval-stream-" +
                     std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + ".ndjson");
  {
    auto stream = IntervalStream::open(path.string());
    EXPECT_TRUE(stream) << (stream ? "" : stream.error().message);
    if (!stream) return {};
    // 2026-12-02T04:30:00Z
    const auto window_start = std::chrono::system_clock::from_time_t(1796185800);
    for (const IntervalSample& s : r.intervals)
      (*stream)->interval(r.role, window_start, s, r.udp.has_value());
    (*stream)->end(r);
  }
  auto text = test::read_text(path.string());
  std::filesystem::remove(path);
  return text.value_or("");
}

TEST(IntervalOutputs, CsvGolden) {
  expect_golden("intervals-sender.csv", render_interval_csv(test::sample_sender_verbose()));
  expect_golden("intervals-udp-receiver.csv", render_interval_csv(udp_intervals()));
}

TEST(IntervalOutputs, StreamGolden) {
  expect_golden("intervals-sender.ndjson", streamed(test::sample_sender_verbose()));
  expect_golden("intervals-udp-receiver.ndjson", streamed(udp_intervals()));
}

TEST(IntervalOutputs, StreamRefusesADirectoryAndAMissingOne) {
  const std::string dir = std::filesystem::temp_directory_path().string();
  auto to_dir = IntervalStream::open(dir);
  ASSERT_FALSE(to_dir);
  EXPECT_EQ(to_dir.error().message, "--json-stream: cannot write " + dir + ": it is a directory");
  EXPECT_FALSE(check_stream_path("/nonexistent-xttcp/dir/s.ndjson"));
  EXPECT_TRUE(check_stream_path("-"));
}

}  // namespace
}  // namespace xttcp
