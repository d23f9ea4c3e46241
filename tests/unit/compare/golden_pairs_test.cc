// compare's verdicts on golden pairs (tests/golden/compare, written by make_pairs.py): clear
// regression, clear improvement, noise, an environment change, single runs, another workload.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "engine/report/native_runs.hh"
#include "tests/unit/golden_file.hh"
#include "tools/compare/compare_report.hh"
#include "tools/compare/comparison.hh"
#include "tools/compare/differences.hh"

namespace xttcp {
namespace {

RunSet load(const std::string& name) {
  std::ifstream in(std::string(GOLDEN_DIR) + "/compare/" + name);
  std::ostringstream text;
  text << in.rdbuf();
  auto set = parse_native_runs(text.str());
  EXPECT_TRUE(set) << name << ": " << (set ? "" : set.error().message);
  return set ? *set : RunSet{};
}

Comparison compare(const std::string& base, const std::string& changed) {
  return compare_runs(load(base).runs, load(changed).runs, CompareOptions{});
}

const MetricComparison& metric(const Comparison& c, const std::string& key) {
  for (const MetricComparison& m : c.metrics)
    if (m.metric->key == key) return m;
  ADD_FAILURE() << "no metric " << key;
  static const MetricComparison none;
  return none;
}

TEST(GoldenPairs, ClearRegression) {
  const Comparison c = compare("base.json", "regression.json");
  EXPECT_TRUE(c.tested);
  EXPECT_EQ(c.overall, Verdict::regression);
  const MetricComparison& t = metric(c, "throughput_gbps");
  EXPECT_EQ(t.verdict, Verdict::regression);
  EXPECT_NEAR(*t.change_pct, (8.0 - 10.0333333333) / 10.0333333333 * 100, 1e-6);
  ASSERT_TRUE(t.test);
  EXPECT_LT(t.test->p, 0.001);
  EXPECT_EQ(t.base.n, 3u);
  // Scaled with the bytes, the per-byte figures did not move.
  EXPECT_EQ(metric(c, "cpu_s_per_gb").verdict, Verdict::same);
  EXPECT_EQ(metric(c, "packets_per_s").verdict, Verdict::regression);
}

TEST(GoldenPairs, ClearImprovement) {
  const Comparison c = compare("base.json", "improvement.json");
  EXPECT_EQ(c.overall, Verdict::improvement);
  EXPECT_EQ(metric(c, "throughput_gbps").verdict, Verdict::improvement);
}

TEST(GoldenPairs, NoisePastTheThresholdIsNotARegression) {
  const Comparison c = compare("noise-base.json", "noise.json");
  const MetricComparison& t = metric(c, "throughput_gbps");
  EXPECT_LT(*t.change_pct, -5);
  EXPECT_GT(t.test->p, 0.05);
  EXPECT_EQ(t.verdict, Verdict::noise);
  EXPECT_EQ(c.overall, Verdict::same);
}

TEST(GoldenPairs, EnvironmentChangeIsReportedNotJudged) {
  const RunSet base = load("base.json"), changed = load("environment.json");
  const Comparison c = compare_runs(base.runs, changed.runs, CompareOptions{});
  EXPECT_EQ(c.overall, Verdict::same);
  EXPECT_TRUE(workload_differences(base.runs[0], changed.runs[0]).empty());
  const auto env = environment_differences(base.runs[0], changed.runs[0]);
  ASSERT_EQ(env.size(), 2u);
  EXPECT_EQ(env[0].key, "host.cpu_model");
  EXPECT_TRUE(env[0].warning);  // another CPU: not like for like
  EXPECT_EQ(env[1].key, "host.kernel");
  EXPECT_FALSE(env[1].warning);  // a new kernel or driver is what the comparison is for
  EXPECT_EQ(env[1].changed, "\"6.19.0-new\"");
}

TEST(GoldenPairs, SingleRunsApplyOnlyTheThreshold) {
  const Comparison worse = compare("single-base.json", "single-regression.json");
  EXPECT_FALSE(worse.tested);
  EXPECT_FALSE(metric(worse, "throughput_gbps").test.has_value());
  EXPECT_EQ(worse.overall, Verdict::regression);
  const Comparison close = compare("single-base.json", "single-same.json");
  EXPECT_EQ(close.overall, Verdict::same);
  // One side repeated, the other not: still no test.
  EXPECT_FALSE(compare("base.json", "single-regression.json").tested);
}

TEST(GoldenPairs, AnotherWorkloadIsNamed) {
  const auto diff =
      workload_differences(load("single-base.json").runs[0], load("other-workload.json").runs[0]);
  ASSERT_EQ(diff.size(), 1u);
  EXPECT_EQ(diff[0].key, "spec.send_buffer");
  EXPECT_EQ(diff[0].changed, "65536");
}

TEST(GoldenPairs, ThresholdIsTheUsers) {
  CompareOptions loose;
  loose.threshold_pct = 25;
  EXPECT_EQ(compare_runs(load("base.json").runs, load("regression.json").runs, loose).overall,
            Verdict::same);
}

TEST(Verdicts, ZeroBase) {
  Result zero, some;
  zero.total_bytes = some.total_bytes = 1'000'000'000;
  zero.duration_s = some.duration_s = 1;
  some.tcp.retrans_segs = 50;
  const Comparison c = compare_runs({zero}, {some}, CompareOptions{});
  const MetricComparison& r = metric(c, "retransmits_per_gb");
  EXPECT_FALSE(r.change_pct.has_value());
  EXPECT_EQ(r.verdict, Verdict::not_comparable);
  EXPECT_EQ(metric(compare_runs({zero}, {zero}, CompareOptions{}), "retransmits_per_gb").verdict,
            Verdict::same);
}

TEST(Verdicts, HostSensitiveMetricsAreJudgedOnlyWhenAsked) {
  Result calm, busy;
  calm.total_bytes = busy.total_bytes = 1'000'000'000;
  calm.duration_s = busy.duration_s = 1;
  calm.cpu.cycles_per_byte = 1.0;
  busy.cpu.cycles_per_byte = 1.5;  // another process loaded the host
  calm.cpu.process_system_s = 0.10;
  busy.cpu.process_system_s = 0.12;  // ... and stretched this one's CPU time
  const Comparison by_default = compare_runs({calm}, {busy}, CompareOptions{});
  for (const char* key : {"cycles_per_byte", "cpu_s_per_gb"}) {
    EXPECT_EQ(metric(by_default, key).verdict, Verdict::regression) << key;
    EXPECT_FALSE(metric(by_default, key).judged) << key;
  }
  EXPECT_EQ(by_default.overall, Verdict::same);
  CompareOptions all;
  all.judge_all = true;
  EXPECT_EQ(compare_runs({calm}, {busy}, all).overall, Verdict::regression);
}

// Both renderings of the clear regression: the table a person reads, and the JSON a pipeline
// (and `xttcp report`, which plots each run's value) reads.
TEST(GoldenPairs, RenderedRegression) {
  CompareReport report;
  report.base = {"base.json", 3};
  report.changed = {"regression.json", 3};
  report.comparison = compare("base.json", "regression.json");
  test::expect_golden_in("compare", "regression.table.txt", render_compare_table(report));
  test::expect_golden_in("compare", "regression.compare.json", render_compare_json(report));
}

}  // namespace
}  // namespace xttcp
