// The --rr histogram against exact nearest-rank percentiles of synthetic samples: every
// reported percentile within 1 % of the exact one (the layout promises 1/256), and merging and
// windows that give exactly what recording everything in one histogram gives.
#include "engine/stats/latency_histogram.hh"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace xttcp {
namespace {

constexpr double quantiles[] = {0.5, 0.9, 0.99, 0.999, 0.9999, 1.0};

uint64_t exact_percentile(std::vector<uint64_t> samples, double q) {
  std::sort(samples.begin(), samples.end());
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(samples.size())));
  return samples[std::max<std::size_t>(rank, 1) - 1];
}

void expect_within_one_percent(const std::vector<uint64_t>& samples) {
  HistogramCounts histogram;
  uint64_t sum = 0;
  for (uint64_t value : samples) {
    histogram.record(value);
    sum += value;
  }
  ASSERT_EQ(histogram.count, samples.size());
  for (double q : quantiles) {
    const double exact = static_cast<double>(exact_percentile(samples, q));
    const double got = static_cast<double>(histogram.percentile(q));
    EXPECT_LE(std::abs(got - exact), exact * 0.01) << "q=" << q << " exact=" << exact;
  }
  EXPECT_EQ(histogram.max_ns, *std::max_element(samples.begin(), samples.end()));
  EXPECT_DOUBLE_EQ(histogram.mean_ns(),
                   static_cast<double>(sum) / static_cast<double>(samples.size()));
}

TEST(LatencyHistogramLayout, BucketsTileTheValuesWithoutGapsAndStayNarrow) {
  for (std::size_t i = 0; i + 1 < histogram_layout::bucket_count; ++i) {
    ASSERT_EQ(histogram_layout::lower_bound(i) + histogram_layout::width(i),
              histogram_layout::lower_bound(i + 1))
        << i;
    ASSERT_LE(histogram_layout::width(i) * 128,
              std::max<uint64_t>(histogram_layout::lower_bound(i), 128))
        << i;
    ASSERT_EQ(histogram_layout::index_of(histogram_layout::lower_bound(i)), i);
    ASSERT_EQ(histogram_layout::index_of(histogram_layout::lower_bound(i + 1) - 1), i);
  }
  EXPECT_EQ(histogram_layout::index_of(UINT64_MAX), histogram_layout::bucket_count - 1);
}

TEST(LatencyHistogram, UniformSamplesWithinOnePercent) {
  std::mt19937_64 random(1);
  std::uniform_int_distribution<uint64_t> uniform(1'000, 1'000'000);
  std::vector<uint64_t> samples(200'000);
  for (uint64_t& value : samples) value = uniform(random);
  expect_within_one_percent(samples);
}

TEST(LatencyHistogram, BimodalSamplesWithinOnePercent) {
  // 95 % fast (about 20 us), 5 % slow (about 3 ms): p99 and above land in the second mode.
  std::mt19937_64 random(2);
  std::normal_distribution<double> fast(20'000, 2'000), slow(3'000'000, 300'000);
  std::bernoulli_distribution is_slow(0.05);
  std::vector<uint64_t> samples(200'000);
  for (uint64_t& value : samples)
    value = static_cast<uint64_t>(std::max(1.0, is_slow(random) ? slow(random) : fast(random)));
  expect_within_one_percent(samples);
}

TEST(LatencyHistogram, LongTailedSamplesWithinOnePercent) {
  // Pareto (alpha 1.2) from 5 us: the tail reaches seconds.
  std::mt19937_64 random(3);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<uint64_t> samples(200'000);
  for (uint64_t& value : samples)
    value = static_cast<uint64_t>(5'000.0 / std::pow(1.0 - unit(random), 1.0 / 1.2));
  expect_within_one_percent(samples);
}

TEST(LatencyHistogram, SmallValuesAreExact) {
  HistogramCounts histogram;
  for (uint64_t value = 0; value < 200; ++value) histogram.record(value);
  EXPECT_EQ(histogram.percentile(0.5), 99u);
  EXPECT_EQ(histogram.percentile(1.0), 199u);
  EXPECT_EQ(histogram.percentile(0.0), 0u);  // rank 1: the smallest
}

TEST(LatencyHistogram, EmptyReportsZero) {
  HistogramCounts histogram;
  EXPECT_EQ(histogram.percentile(0.99), 0u);
  EXPECT_EQ(histogram.mean_ns(), 0.0);
}

TEST(LatencyHistogram, MergingEqualsRecordingEverythingInOne) {
  std::mt19937_64 random(4);
  std::lognormal_distribution<double> lognormal(10.0, 1.5);
  HistogramCounts a, b, all;
  for (int i = 0; i < 50'000; ++i) {
    const auto value = static_cast<uint64_t>(lognormal(random));
    (i % 3 == 0 ? a : b).record(value);
    all.record(value);
  }
  HistogramCounts merged;
  merged.merge(a).merge(b);
  EXPECT_EQ(merged.buckets, all.buckets);
  EXPECT_EQ(merged.count, all.count);
  EXPECT_EQ(merged.sum_ns, all.sum_ns);
  EXPECT_EQ(merged.max_ns, all.max_ns);
  for (double q : quantiles) EXPECT_EQ(merged.percentile(q), all.percentile(q)) << q;
}

TEST(LatencyHistogram, WindowIsWhatWasRecordedBetweenTwoReads) {
  LatencyHistogram live;
  for (uint64_t value : {900'000u, 1'000u, 2'000u}) live.record(value);
  const HistogramCounts start = live.read();
  HistogramCounts expected;
  for (uint64_t value : {5'000u, 6'000u, 7'000u, 40'000u}) {
    live.record(value);
    expected.record(value);
  }
  const HistogramCounts window = live.read().minus(start);
  EXPECT_EQ(window.buckets, expected.buckets);
  EXPECT_EQ(window.count, 4u);
  EXPECT_EQ(window.sum_ns, expected.sum_ns);
  // Not the run's max (900 us, before the window) but the window's highest bucket.
  EXPECT_LE(window.max_ns, 40'000u * 101 / 100);
  EXPECT_GE(window.max_ns, 40'000u * 99 / 100);
  EXPECT_EQ(window.percentile(0.5), expected.percentile(0.5));
}

}  // namespace
}  // namespace xttcp
