// --bidir's two timelines' intervals paired by their time (engine/iperf3/paired_intervals.hh):
// in either order, one that a late timeline skipped goes out with that group's share empty,
// and what is left at the end goes out in order.
#include "engine/iperf3/paired_intervals.hh"

#include <gtest/gtest.h>

namespace xttcp::iperf3 {
namespace {

// What the renderer was given: each interval's start and each group's bytes.
struct Seen final : GroupIntervals {
  std::vector<std::pair<double, std::vector<uint64_t>>> intervals_seen;
  void intervals(const std::vector<IntervalSample>& by_group, bool) override {
    std::vector<uint64_t> bytes;
    for (const IntervalSample& s : by_group) bytes.push_back(s.bytes);
    intervals_seen.emplace_back(by_group.front().start_s, bytes);
  }
};

IntervalSample at(double start_s, uint64_t bytes, double seconds = 1) {
  IntervalSample s;
  s.start_s = start_s;
  s.seconds = seconds;
  s.bytes = bytes;
  return s;
}

TEST(PairedIntervals, EachIntervalOnceBothGroupsHadIt) {
  Seen seen;
  PairedIntervals paired({true, false}, 1.0, seen);
  paired.interval(Role::receiver, {}, at(0, 20), false);  // the second group's first
  EXPECT_TRUE(seen.intervals_seen.empty());
  paired.interval(Role::sender, {}, at(0, 10), false);
  paired.interval(Role::sender, {}, at(1, 11), false);
  paired.interval(Role::receiver, {}, at(1, 21), false);
  ASSERT_EQ(seen.intervals_seen.size(), 2u);
  EXPECT_EQ(seen.intervals_seen[0].second, (std::vector<uint64_t>{10, 20}));  // group order
  EXPECT_EQ(seen.intervals_seen[1].second, (std::vector<uint64_t>{11, 21}));
}

TEST(PairedIntervals, AnIntervalALateTimelineSkippedGoesOutWithItsShareEmpty) {
  Seen seen;
  PairedIntervals paired({true, false}, 1.0, seen);
  paired.interval(Role::sender, {}, at(0, 10), false);
  paired.interval(Role::sender, {}, at(1, 11), false);
  // The receiving timeline woke late: its one sample spans two intervals, from 0.
  paired.interval(Role::receiver, {}, at(0, 40, 2), false);
  paired.interval(Role::sender, {}, at(2, 12), false);
  paired.interval(Role::receiver, {}, at(2, 22), false);
  ASSERT_EQ(seen.intervals_seen.size(), 3u);
  EXPECT_EQ(seen.intervals_seen[0].second, (std::vector<uint64_t>{10, 40}));
  EXPECT_EQ(seen.intervals_seen[1].second, (std::vector<uint64_t>{11, 0}));   // skipped: empty
  EXPECT_EQ(seen.intervals_seen[2].second, (std::vector<uint64_t>{12, 22}));  // in step again
}

// -O: the omit period's intervals are timed from the test's start, the others from the
// window's, so their times meet; they never pair with each other, and the omitted go first.
TEST(PairedIntervals, TheOmitPeriodsIntervalsKeepApartAndGoFirst) {
  Seen seen;
  PairedIntervals paired({true, false}, 1.0, seen);
  IntervalSample omitted = at(0, 5);
  omitted.omitted = true;
  paired.interval(Role::sender, {}, omitted, false);
  paired.interval(Role::sender, {}, at(0, 10), false);  // a step ahead of the other group
  omitted.bytes = 6;
  paired.interval(Role::receiver, {}, omitted, false);
  paired.interval(Role::receiver, {}, at(0, 20), false);
  ASSERT_EQ(seen.intervals_seen.size(), 2u);
  EXPECT_EQ(seen.intervals_seen[0].second, (std::vector<uint64_t>{5, 6}));
  EXPECT_EQ(seen.intervals_seen[1].second, (std::vector<uint64_t>{10, 20}));
}

TEST(PairedIntervals, WhatIsLeftAtTheEndGoesOutInOrder) {
  Seen seen;
  PairedIntervals paired({false, true}, 1.0, seen);
  paired.interval(Role::receiver, {}, at(0, 10), false);
  paired.interval(Role::receiver, {}, at(1, 11, 0.01), false);  // a last short one, this group's
  paired.interval(Role::sender, {}, at(0, 20), false);
  ASSERT_EQ(seen.intervals_seen.size(), 1u);
  paired.flush();
  ASSERT_EQ(seen.intervals_seen.size(), 2u);
  EXPECT_DOUBLE_EQ(seen.intervals_seen[1].first, 1);
  EXPECT_EQ(seen.intervals_seen[1].second, (std::vector<uint64_t>{11, 0}));
}

}  // namespace
}  // namespace xttcp::iperf3
