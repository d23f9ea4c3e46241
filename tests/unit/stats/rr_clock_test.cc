// RrClock: which clock --rr round trips are timed with, and its tick arithmetic.
#include "engine/stats/rr_clock.hh"

#include <gtest/gtest.h>

namespace xttcp {
namespace {

TEST(RrClock, MonotonicWhenTheKernelDoesNotKeepTimeWithTheTsc) {
  const RrClock clock = RrClock::choose("kvm-clock", 1'000'000);
#ifndef _WIN32
  EXPECT_FALSE(clock.tsc());
  EXPECT_EQ(clock.description(),
            "CLOCK_MONOTONIC (the kernel's clocksource is kvm-clock, not tsc)");
  EXPECT_EQ(clock.to_ns(12345), 12345u) << "CLOCK_MONOTONIC ticks are ns";
  EXPECT_EQ(clock.from_ns(12345), 12345u);
#endif
  const uint64_t a = clock.now();
  const uint64_t b = clock.now();
  EXPECT_GE(b, a);
}

#if defined(__x86_64__) && !defined(_WIN32)
TEST(RrClock, TheTscWhenTheKernelKeepsTimeWithIt) {
  const RrClock clock = RrClock::choose("tsc", 2'000'000);
  ASSERT_TRUE(clock.tsc());
  EXPECT_NE(clock.description().find("MHz measured against CLOCK_MONOTONIC"), std::string::npos)
      << clock.description();
  // Ticks to ns and back lose less than a tick's worth.
  for (uint64_t ns : {uint64_t{1'000}, uint64_t{200'000'000}, uint64_t{3'600'000'000'000}}) {
    const uint64_t back = clock.to_ns(clock.from_ns(ns));
    EXPECT_LE(ns - std::min(ns, back), 2u) << ns;
    EXPECT_LE(back - std::min(ns, back), 2u) << ns;
  }
  const uint64_t a = clock.now();
  const uint64_t b = clock.now();
  EXPECT_GE(b, a);
}
#endif

}  // namespace
}  // namespace xttcp
