// The live line (engine/report/live_line.hh): NTTTCP-for-Linux's "Real-time throughput: X"
// first, byte for byte, then where the test stands; --rr counts transactions, not bits.
#include "engine/report/live_line.hh"

#include <gtest/gtest.h>

namespace xttcp {
namespace {

LiveFigures bits(double bps) {
  LiveFigures f;
  f.bits_per_second = bps;
  return f;
}

TEST(LiveLine, WithoutProgressItIsTheOriginalsLine) {
  EXPECT_EQ(live_line(bits(13.31e9), std::nullopt), "Real-time throughput: 13.31Gbps");
}

TEST(LiveLine, MeasuredWindowShowsElapsedAndRemaining) {
  LiveProgress p;
  p.elapsed_s = 3.02;
  p.length_s = 10;
  p.left_s = 7.98;
  EXPECT_EQ(live_line(bits(13.31e9), p),
            "Real-time throughput: 13.31Gbps  [3.0/10 s, ends in 8.0 s]");
}

TEST(LiveLine, WarmUpAndCoolDownAreNamed) {
  LiveProgress warm;
  warm.phase = LiveProgress::Phase::warmup;
  warm.elapsed_s = 0.5;
  warm.length_s = 2;
  warm.left_s = 11.5;
  EXPECT_EQ(live_line(bits(2e9), warm),
            "Real-time throughput: 2.00Gbps  [warm-up 0.5/2 s, ends in 11.5 s]");
  LiveProgress cool;
  cool.phase = LiveProgress::Phase::cooldown;
  cool.left_s = 0.5;
  EXPECT_EQ(live_line(bits(2e9), cool),
            "Real-time throughput: 2.00Gbps  [cool-down, ends in 0.5 s]");
}

TEST(LiveLine, OpenEndedTestsSayWhatEndsThem) {
  LiveProgress p;
  p.elapsed_s = 12.25;
  p.until = "until stopped";
  EXPECT_EQ(live_line(bits(2e9), p), "Real-time throughput: 2.00Gbps  [12.2 s, until stopped]");
}

TEST(LiveLine, RrRequesterShowsTransactionsAndRoundTrips) {
  LiveFigures f;
  f.bits_per_second = 200e6;
  LiveTransactions rr;
  rr.per_second = 196106.7;
  rr.requester = true;
  rr.round_trips = 98000;
  rr.p50_ns = 31'930;
  rr.p99_ns = 135'680;
  f.rr = rr;
  LiveProgress p;
  p.elapsed_s = 1;
  p.length_s = 2;
  p.left_s = 1;
  EXPECT_EQ(live_line(f, p),
            "Real-time transactions: 196106.7/s completed, round trip p50 31.93 p99 135.68 us  "
            "[1.0/2 s, ends in 1.0 s]");
}

TEST(LiveLine, RrResponderCountsWhatItAnswered) {
  LiveFigures f;
  LiveTransactions rr;
  rr.per_second = 995;
  f.rr = rr;
  EXPECT_EQ(live_line(f, std::nullopt), "Real-time transactions: 995.0/s answered");
}

}  // namespace
}  // namespace xttcp
