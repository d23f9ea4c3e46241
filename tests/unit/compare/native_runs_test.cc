// The set of repeated runs: what it writes reads back, with statistics per metric; a single
// result reads as a set of one; bad documents fail with one line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "engine/report/native_runs.hh"

namespace xttcp {
namespace {

Result run_of(uint64_t bytes) {
  Result r;
  r.role = Role::sender;
  r.tool_version = "9.9";
  r.duration_s = 2;
  r.total_bytes = bytes;
  r.cpu.process_system_s = 1;
  return r;
}

TEST(NativeRuns, RoundTripWithStatistics) {
  RunSet set;
  set.pause_s = 1.5;
  for (uint64_t gb : {2, 3, 4}) set.runs.push_back(run_of(gb * 1'000'000'000));
  const std::string text = render_native_runs(set);
  auto doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc["schema"], "xttcp-runs");
  EXPECT_EQ(doc["repeat"]["count"], 3);
  const auto& t = doc["statistics"]["metrics"]["throughput_gbps"];
  EXPECT_DOUBLE_EQ(t["median"].get<double>(), 12.0);  // 8, 12, 16 Gbit/s
  EXPECT_DOUBLE_EQ(t["stddev"].get<double>(), 4.0);
  EXPECT_NEAR(t["ci_high"].get<double>(), 12 + 4.30265273 * 4 / std::sqrt(3.0), 1e-6);
  EXPECT_EQ(doc["statistics"]["ci_method"], "Student t interval of the mean, 95 %");
  auto back = parse_native_runs(text);
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_EQ(back->runs.size(), 3u);
  EXPECT_EQ(back->runs[2].total_bytes, 4'000'000'000u);
  EXPECT_DOUBLE_EQ(back->pause_s, 1.5);
}

TEST(NativeRuns, RefusesWhatIsNotASet) {
  EXPECT_FALSE(parse_native_runs("[]"));
  auto other = parse_native_runs(R"({"schema": "iperf3"})");
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().message.find("neither"), std::string::npos);
  EXPECT_FALSE(parse_native_runs(R"({"schema": "xttcp-runs", "schema_version": 1, "runs": []})"));
  auto newer = parse_native_runs(R"({"schema": "xttcp-runs", "schema_version": 99, "runs": []})");
  ASSERT_FALSE(newer);
  EXPECT_NE(newer.error().message.find("99"), std::string::npos);
  auto bad_run = parse_native_runs(
      R"({"schema": "xttcp-runs", "schema_version": 1, "runs": [{"schema": "x"}]})");
  ASSERT_FALSE(bad_run);
  EXPECT_NE(bad_run.error().message.find("runs[0]"), std::string::npos);
}

}  // namespace
}  // namespace xttcp
