// The statistics on synthetic samples. Expected values were computed independently with
// python3: statistics.mean/median/stdev, and Student's t by Simpson integration of its density
// (not the incomplete beta function the code uses).
#include <gtest/gtest.h>

#include <vector>

#include "engine/analysis/sample_stats.hh"
#include "engine/analysis/welch_test.hh"

namespace xttcp {
namespace {

const std::vector<double> five = {9.8, 10.1, 10.4, 9.9, 10.0};
const std::vector<double> four = {9.1, 9.4, 9.0, 9.3};

TEST(StudentT, DistributionFunction) {
  EXPECT_NEAR(student_t_cdf(2.0, 5), 0.949030260585, 1e-9);
  EXPECT_NEAR(student_t_cdf(1.5, 2.5), 0.876081773457, 1e-9);  // fractional df (Welch)
  EXPECT_NEAR(student_t_cdf(-3.0, 10), 0.0066718275113, 1e-10);
  EXPECT_DOUBLE_EQ(student_t_cdf(0, 7), 0.5);
}

TEST(StudentT, Quantile) {
  EXPECT_NEAR(student_t_quantile(0.975, 4), 2.776445105, 1e-7);
  EXPECT_NEAR(student_t_quantile(0.975, 2), 4.30265273, 1e-7);
  EXPECT_NEAR(student_t_quantile(0.025, 2), -4.30265273, 1e-7);
}

TEST(Summarize, FiveValues) {
  const SampleSummary s = summarize(five);
  EXPECT_EQ(s.n, 5u);
  EXPECT_NEAR(s.mean, 10.04, 1e-12);
  EXPECT_NEAR(s.median, 10.0, 1e-12);
  EXPECT_NEAR(s.stddev, 0.230217288664, 1e-11);
  EXPECT_NEAR(s.cv, 0.0229300088311, 1e-11);
  EXPECT_DOUBLE_EQ(s.min, 9.8);
  EXPECT_DOUBLE_EQ(s.max, 10.4);
  ASSERT_TRUE(s.ci_low && s.ci_high);
  EXPECT_NEAR(*s.ci_low, 9.754147481, 1e-8);
  EXPECT_NEAR(*s.ci_high, 10.32585252, 1e-8);
}

TEST(Summarize, EvenCountTakesTheMiddlePair) {
  const SampleSummary s = summarize(four);
  EXPECT_NEAR(s.median, 9.2, 1e-12);
  EXPECT_NEAR(s.stddev, 0.182574185835, 1e-11);
  EXPECT_NEAR(*s.ci_low, 8.909483728, 1e-8);
  EXPECT_NEAR(*s.ci_high, 9.490516272, 1e-8);
}

TEST(Summarize, OneValueHasNoSpreadNorInterval) {
  const std::vector<double> one = {7.5};
  const SampleSummary s = summarize(one);
  EXPECT_EQ(s.n, 1u);
  EXPECT_DOUBLE_EQ(s.mean, 7.5);
  EXPECT_DOUBLE_EQ(s.median, 7.5);
  EXPECT_DOUBLE_EQ(s.stddev, 0);
  EXPECT_FALSE(s.ci_low.has_value());
  EXPECT_EQ(summarize(std::vector<double>{}).n, 0u);
}

TEST(Welch, ClearDifference) {
  auto r = welch_t_test(five, four);
  ASSERT_TRUE(r);
  EXPECT_NEAR(r->t, -6.10471994721, 1e-9);
  EXPECT_NEAR(r->df, 6.99617617082, 1e-9);
  EXPECT_NEAR(r->p, 0.0004898455533, 1e-10);
}

TEST(Welch, OverlappingSamples) {
  auto r = welch_t_test(std::vector<double>{10.0, 10.3, 9.7}, std::vector<double>{9.9, 10.4, 10.1});
  ASSERT_TRUE(r);
  EXPECT_NEAR(r->t, 0.58976782462, 1e-9);
  EXPECT_NEAR(r->df, 3.88256880734, 1e-9);
  EXPECT_NEAR(r->p, 0.5879534069, 1e-8);
}

TEST(Welch, NeedsTwoValuesOnEachSide) {
  EXPECT_FALSE(welch_t_test(std::vector<double>{1.0}, four));
  EXPECT_FALSE(welch_t_test(five, std::vector<double>{}));
}

TEST(Welch, ConstantSides) {
  const std::vector<double> a = {3, 3, 3}, b = {4, 4};
  EXPECT_DOUBLE_EQ(welch_t_test(a, a)->p, 1);
  EXPECT_DOUBLE_EQ(welch_t_test(a, b)->p, 0);
}

}  // namespace
}  // namespace xttcp
