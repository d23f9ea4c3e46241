// The rate-following receive mark (--receive-mark): the mark for a rate, its bounds, and that a
// slower or paced flow gets a lower mark within one sample, so its data is not held back.
#include "engine/stats/rate_mark.hh"

#include <gtest/gtest.h>

#include <cstdint>

namespace xttcp {
namespace {

constexpr uint64_t big_cap = uint64_t{1} << 30;
constexpr double gbit = 1e9 / 8;  // bytes per second of 1 Gbit/s

TEST(MarkForRate, SlowFlowsKeepTheKernelsWakeups) {
  EXPECT_EQ(mark_for_rate(0, big_cap), rate_mark::off);
  EXPECT_EQ(mark_for_rate(1 * gbit, big_cap), rate_mark::off);  // 31 KB per 250 us
  EXPECT_EQ(mark_for_rate(2 * gbit, big_cap), rate_mark::off);  // 62.5 KB < 64 KiB
}

TEST(MarkForRate, AWakeupCarriesAboutAQuarterMillisecond) {
  // 10 Gbit/s: 312.5 KB per 250 us -> 256 KiB (a power of two at or below).
  EXPECT_EQ(mark_for_rate(10 * gbit, big_cap), 256u * 1024);
  EXPECT_EQ(mark_for_rate(3 * gbit, big_cap), 64u * 1024);  // 93.75 KB
  // Never more than 250 us of the rate: held-back data stays under that.
  for (double rate = 2.2 * gbit; rate < 40 * gbit; rate *= 1.3) {
    const uint32_t mark = mark_for_rate(rate, big_cap);
    EXPECT_LE(mark, rate * 250e-6) << rate;
    EXPECT_GT(mark, rate * 250e-6 / 2) << rate;
  }
}

TEST(MarkForRate, BoundedByTheMaximumAndTheSocketsBuffer) {
  EXPECT_EQ(mark_for_rate(400 * gbit, big_cap), rate_mark::max_mark);
  EXPECT_EQ(mark_for_rate(400 * gbit, 300 * 1024), 256u * 1024);
  EXPECT_EQ(mark_for_rate(400 * gbit, 32 * 1024), rate_mark::off);  // too small a buffer
}

TEST(RateMark, FirstCallStartsASample) {
  RateMark mark;
  EXPECT_TRUE(mark.sample_due(0));
  EXPECT_EQ(mark.update(0, 1000, big_cap), 0u);
  EXPECT_FALSE(mark.sample_due(1000 + rate_mark::sample_ns - 1));
  EXPECT_EQ(mark.update(1'000'000'000, 1000 + rate_mark::sample_ns - 1, big_cap), 0u);  // not yet
  EXPECT_TRUE(mark.sample_due(1000 + rate_mark::sample_ns));
}

// Bytes a flow of `rate` delivers in one sample.
uint64_t per_sample(double rate) {
  return static_cast<uint64_t>(rate * static_cast<double>(rate_mark::sample_ns) / 1e9);
}

TEST(RateMark, FollowsTheRateUpAndDown) {
  RateMark mark;
  uint64_t bytes = 0, now = 0;
  mark.update(bytes, now, big_cap);
  auto step = [&](double rate) {
    bytes += per_sample(rate);
    now += rate_mark::sample_ns;
    const uint32_t next = mark.update(bytes, now, big_cap);
    if (next != 0) mark.applied(next);
    return next;
  };
  EXPECT_EQ(step(40 * gbit), 0u);                   // one sample is not enough to raise it
  EXPECT_EQ(step(40 * gbit), rate_mark::max_mark);  // 1.25 MB per 250 us, capped
  EXPECT_EQ(mark.current(), rate_mark::max_mark);
  EXPECT_EQ(step(40 * gbit), 0u);  // steady: no system call
  EXPECT_EQ(step(10 * gbit), 256u * 1024);
  EXPECT_EQ(step(1 * gbit), rate_mark::off);  // paced down: back to every segment at once
  EXPECT_EQ(step(1 * gbit), 0u);
}

TEST(RateMark, AStalledFlowDropsItsMark) {
  // A flow whose data sits under the mark delivers nothing in the next sample: the mark goes.
  RateMark mark;
  mark.update(0, 0, big_cap);
  const uint64_t bytes = per_sample(20 * gbit);
  EXPECT_EQ(mark.update(bytes, rate_mark::sample_ns, big_cap), 0u);
  const uint32_t high = mark.update(2 * bytes, 2 * rate_mark::sample_ns, big_cap);
  ASSERT_GT(high, rate_mark::off);
  mark.applied(high);
  EXPECT_EQ(mark.update(2 * bytes, 3 * rate_mark::sample_ns, big_cap), rate_mark::off);
}

TEST(RateMark, ABurstAloneDoesNotRaiseIt) {
  // A paced 1 Gbit/s flow whose reader was late counts 8 samples' data in one: no mark.
  RateMark mark;
  uint64_t bytes = 0, now = 0;
  mark.update(bytes, now, big_cap);
  for (int i = 0; i < 3; ++i) {
    bytes += per_sample(1 * gbit) * (i == 1 ? 8 : 1);
    now += rate_mark::sample_ns;
    EXPECT_EQ(mark.update(bytes, now, big_cap), 0u) << i;
  }
}

TEST(RateMark, ALowerSocketBufferLowersTheMark) {
  RateMark mark;
  mark.update(0, 0, big_cap);
  mark.update(per_sample(40 * gbit), rate_mark::sample_ns, big_cap);
  mark.applied(mark.update(2 * per_sample(40 * gbit), 2 * rate_mark::sample_ns, big_cap));
  EXPECT_EQ(mark.current(), rate_mark::max_mark);
  EXPECT_EQ(mark.update(3 * per_sample(40 * gbit), 3 * rate_mark::sample_ns, 128 * 1024),
            128u * 1024);
}

}  // namespace
}  // namespace xttcp
