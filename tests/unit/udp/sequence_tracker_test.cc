// Receive-side UDP accounting on synthetic arrival orders, with exact expected counters, and a
// randomized comparison against a simple std::set model (fixed seeds, so runs are repeatable).
#include "engine/udp/sequence_tracker.hh"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <random>
#include <set>
#include <vector>

namespace xttcp::udp {
namespace {

constexpr uint64_t two32 = uint64_t{1} << 32;
constexpr uint32_t payload = 100;

// One flow: its counters and its tracker. Without times, every datagram has the same transit
// (send = receive = 0), so jitter stays 0 and does not distract the sequence tests.
struct Flow {
  explicit Flow(uint32_t window = 65536) : tracker(counters, window) {}
  void receive(std::initializer_list<uint32_t> sequences) {
    for (uint32_t sequence : sequences) tracker.on_datagram(sequence, 0, 0, payload);
  }
  UdpFlowSnapshot snapshot() const { return read(counters); }

  UdpFlowCounters counters;
  SequenceTracker tracker;
};

UdpFlowSnapshot counts(uint64_t datagrams, uint64_t unique, uint64_t duplicates, uint64_t reordered,
                       uint64_t expected) {
  UdpFlowSnapshot s;
  s.datagrams = datagrams;
  s.bytes = datagrams * payload;
  s.unique = unique;
  s.duplicates = duplicates;
  s.reordered = reordered;
  s.expected = expected;
  return s;
}

void expect_counts(const UdpFlowSnapshot& actual, const UdpFlowSnapshot& wanted) {
  EXPECT_EQ(actual.datagrams, wanted.datagrams);
  EXPECT_EQ(actual.bytes, wanted.bytes);
  EXPECT_EQ(actual.unique, wanted.unique);
  EXPECT_EQ(actual.duplicates, wanted.duplicates);
  EXPECT_EQ(actual.reordered, wanted.reordered);
  EXPECT_EQ(actual.expected, wanted.expected);
  EXPECT_EQ(actual.jitter_ns, wanted.jitter_ns);
  EXPECT_EQ(actual.compat_datagrams, wanted.compat_datagrams);
}

TEST(UdpFlowCounters, OneCacheLine) {
  EXPECT_EQ(sizeof(UdpFlowCounters), cache_line);
  EXPECT_EQ(alignof(UdpFlowCounters), cache_line);
}

TEST(SequenceTracker, NothingReceived) {
  Flow flow;
  expect_counts(flow.snapshot(), counts(0, 0, 0, 0, 0));
  EXPECT_EQ(flow.snapshot().lost(), 0u);
}

TEST(SequenceTracker, InOrder) {
  Flow flow;
  flow.receive({0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  expect_counts(flow.snapshot(), counts(10, 10, 0, 0, 10));
  EXPECT_EQ(flow.snapshot().lost(), 0u);
}

TEST(SequenceTracker, LossAtStartCountsFromZero) {
  Flow flow;
  flow.receive({3, 4, 5, 6, 7, 8, 9});
  expect_counts(flow.snapshot(), counts(7, 7, 0, 0, 10));
  EXPECT_EQ(flow.snapshot().lost(), 3u);
}

// A first arrival past the first window is a flow met late, or a peer's invented one: its random
// sequence claims no loss (before: up to 2^32 per flow, 2.2e12 for a spray of 1024).
TEST(SequenceTracker, AFirstArrivalPastTheFirstWindowStartsTheCount) {
  Flow flow(64);
  flow.receive({63});  // inside the first window: counted from 0
  EXPECT_EQ(flow.snapshot().lost(), 63u);
  Flow late(64);
  late.receive({64, 66, 65, 67});
  expect_counts(late.snapshot(), counts(4, 4, 0, 1, 4));
  Flow invented;
  invented.receive({3'000'000'000u});
  expect_counts(invented.snapshot(), counts(1, 1, 0, 0, 1));
  EXPECT_EQ(invented.snapshot().lost(), 0u);
}

TEST(SequenceTracker, AnEndMarkerCountsFromZeroAgain) {
  // The marker names the flow's whole count: what came before a late first arrival is lost.
  Flow flow(64);
  flow.receive({100, 101});
  EXPECT_EQ(flow.snapshot().lost(), 0u);
  flow.tracker.on_end(110);
  EXPECT_EQ(flow.snapshot().expected, 110u);
  EXPECT_EQ(flow.snapshot().lost(), 108u);
  // A flow tracked afresh (it left the table) still cannot know what its first place counted.
  Flow again(64);
  again.tracker.expect_from_first();
  again.receive({100, 101});
  again.tracker.on_end(110);
  EXPECT_EQ(again.snapshot().expected, 10u);
}

TEST(SequenceTracker, LossInMiddle) {
  Flow flow;
  flow.receive({0, 1, 2, 5, 6, 9});
  expect_counts(flow.snapshot(), counts(6, 6, 0, 0, 10));
  EXPECT_EQ(flow.snapshot().lost(), 4u);
}

TEST(SequenceTracker, LossAtEndIsInvisibleToTheReceiver) {
  // Sent 0..9, received 0..6: nothing after 6 arrived, so the receiver cannot know 7..9 were
  // sent. Only the sender's count (control plane) reveals tail loss.
  Flow flow;
  flow.receive({0, 1, 2, 3, 4, 5, 6});
  expect_counts(flow.snapshot(), counts(7, 7, 0, 0, 7));
  EXPECT_EQ(flow.snapshot().lost(), 0u);
  flow.receive({10});  // a later arrival reveals the gap
  EXPECT_EQ(flow.snapshot().lost(), 3u);
}

TEST(SequenceTracker, ImmediateDuplicate) {
  Flow flow;
  flow.receive({0, 1, 1, 2});
  expect_counts(flow.snapshot(), counts(4, 3, 1, 0, 3));
  EXPECT_EQ(flow.snapshot().lost(), 0u);
}

TEST(SequenceTracker, DuplicateOfTheFirstDatagram) {
  Flow flow;
  flow.receive({5, 5, 5});
  expect_counts(flow.snapshot(), counts(3, 1, 2, 0, 6));
  EXPECT_EQ(flow.snapshot().lost(), 5u);
}

TEST(SequenceTracker, DuplicateFarBackWithinWindow) {
  Flow flow(64);
  for (uint32_t s = 0; s < 64; ++s) flow.receive({s});
  flow.receive({0});  // highest 63, 63 - 0 < 64: still checked
  expect_counts(flow.snapshot(), counts(65, 64, 1, 0, 64));
}

TEST(SequenceTracker, DuplicateBeyondWindowCountsAsReorderedUnique) {
  Flow flow(64);
  for (uint32_t s = 0; s <= 64; ++s) flow.receive({s});
  flow.receive({0});  // highest 64, 64 - 0 = 64: too old to check
  flow.receive({1});  // 63 back: still checked, a real duplicate
  expect_counts(flow.snapshot(), counts(67, 66, 1, 1, 65));
  EXPECT_EQ(flow.snapshot().lost(), 0u);  // under-counted: unique exceeds expected, clamped
}

TEST(SequenceTracker, DuplicateAfterLargeJumpIsSeenWithinWindow) {
  Flow flow(64);
  flow.receive({0, 1000, 990, 990, 1000});
  expect_counts(flow.snapshot(), counts(5, 3, 2, 1, 1001));
  EXPECT_EQ(flow.snapshot().lost(), 998u);
}

TEST(SequenceTracker, ReusedSlotIsNotADuplicate) {
  // 5 and 69 share a slot of a 64-wide bitmap: moving the highest over 69 must forget 5.
  Flow flow(64);
  flow.receive({5, 69, 70, 133});
  expect_counts(flow.snapshot(), counts(4, 4, 0, 0, 134));
  flow.receive({70});  // 63 back from 133: checked and found
  flow.receive({69});  // 64 back: too old, counted as reordered
  expect_counts(flow.snapshot(), counts(6, 5, 1, 1, 134));
}

TEST(SequenceTracker, WindowIsRoundedUpToPowerOfTwo) {
  UdpFlowCounters counters;
  EXPECT_EQ(SequenceTracker(counters).duplicate_window(), 65536u);
  EXPECT_EQ(SequenceTracker(counters, 100).duplicate_window(), 128u);
  EXPECT_EQ(SequenceTracker(counters, 1).duplicate_window(), 64u);
  EXPECT_EQ(SequenceTracker(counters, 0).duplicate_window(), 64u);
  EXPECT_EQ(SequenceTracker(counters, 1024).duplicate_window(), 1024u);
}

TEST(SequenceTracker, Swaps) {
  Flow flow;
  flow.receive({0, 2, 1, 3, 5, 4});
  expect_counts(flow.snapshot(), counts(6, 6, 0, 2, 6));
  EXPECT_EQ(flow.snapshot().lost(), 0u);
}

TEST(SequenceTracker, LateDatagramFillsTheGap) {
  Flow flow;
  flow.receive({0, 1, 3, 4});
  expect_counts(flow.snapshot(), counts(4, 4, 0, 0, 5));
  EXPECT_EQ(flow.snapshot().lost(), 1u);
  flow.receive({2});
  expect_counts(flow.snapshot(), counts(5, 5, 0, 1, 5));
  EXPECT_EQ(flow.snapshot().lost(), 0u);
  flow.receive({2});  // and it is now a duplicate
  expect_counts(flow.snapshot(), counts(6, 5, 1, 1, 5));
}

TEST(SequenceTracker, WrapsAroundTwoToThe32) {
  Flow flow;
  const uint32_t last = 0xFFFFFFFF;
  // 2^32-5 .. 2^32-1 then 0 .. 5, with 2^32-2 arriving after 0 (a reorder across the boundary).
  flow.receive({last - 4, last - 3, last - 2, last, 0, last - 1, 1, 2, 3, 4, 5});
  // The first arrival lies past the first window: counting starts there, nothing before it lost.
  expect_counts(flow.snapshot(), counts(11, 11, 0, 1, 11));
  EXPECT_EQ(flow.snapshot().lost(), 0u);
  flow.receive({last, 3});  // duplicates on both sides of the boundary
  expect_counts(flow.snapshot(), counts(13, 11, 2, 1, 11));
}

TEST(SequenceTracker, ArrivalJustAfterTheBoundaryBeforeTheOnesJustBefore) {
  Flow flow;
  const uint32_t last = 0xFFFFFFFF;
  flow.receive({last - 2, 1, last - 1, last, 0});
  expect_counts(flow.snapshot(), counts(5, 5, 0, 3, 5));  // from last - 2 to 1
  EXPECT_EQ(flow.snapshot().lost(), 0u);
}

TEST(SequenceTracker, ExtendsAcrossSeveralCycles) {
  // Steps of 2^30 (< 2^31) are always read as forward, through three wraps.
  Flow flow;
  uint64_t extended = 0;
  for (int i = 0; i < 12; ++i, extended += uint64_t{1} << 30) {
    flow.receive({static_cast<uint32_t>(extended)});
  }
  extended -= uint64_t{1} << 30;
  EXPECT_EQ(flow.snapshot().expected, extended + 1);
  EXPECT_EQ(extended, 11 * (uint64_t{1} << 30));
  flow.receive({static_cast<uint32_t>(extended - 5)});  // late, from the same cycle
  EXPECT_EQ(flow.snapshot().reordered, 1u);
  EXPECT_EQ(flow.snapshot().expected, extended + 1);
}

TEST(SequenceTracker, NeverExtendsBelowZero) {
  // Highest 3; 0xFFFFFFF0 is closest as -16, which no flow has: it is read as a jump ahead.
  Flow flow;
  flow.receive({3, 0xFFFFFFF0});
  expect_counts(flow.snapshot(), counts(2, 2, 0, 0, 0xFFFFFFF1));
}

TEST(SequenceTracker, CompatDatagramsAreCountedNotSequenced) {
  Flow flow;
  flow.tracker.on_compat_datagram(1400);
  flow.tracker.on_compat_datagram(1400);
  flow.receive({0, 2});
  flow.tracker.on_compat_datagram(8);
  const UdpFlowSnapshot s = flow.snapshot();
  EXPECT_EQ(s.datagrams, 5u);
  EXPECT_EQ(s.bytes, 2 * 1400u + 2 * payload + 8);
  EXPECT_EQ(s.compat_datagrams, 3u);
  EXPECT_EQ(s.unique, 2u);
  EXPECT_EQ(s.expected, 3u);
  EXPECT_EQ(s.lost(), 1u);
  EXPECT_EQ(s.duplicates, 0u);
  EXPECT_EQ(s.reordered, 0u);
}

TEST(SequenceTracker, ConstantTransitHasNoJitter) {
  // Receiver clock far behind the sender's: transit is "negative", only differences matter.
  UdpFlowCounters counters;
  SequenceTracker tracker(counters);
  for (uint32_t s = 0; s < 100; ++s) {
    const uint64_t send = 5'000'000'000'000 + s * 1'000'000;
    tracker.on_datagram(s, send, send - 3'000'000'000'000, payload);
  }
  EXPECT_EQ(read(counters).jitter_ns, 0u);
}

TEST(SequenceTracker, OneSendBatchIsOneJitterSample) {
  // Two batches of 4 datagrams, each stamped once by the sender; the receiver reads them 10 us
  // apart. Inside a batch the spacing says nothing (the stamps are equal); between the batches'
  // first datagrams the transit is the same, so J stays 0.
  UdpFlowCounters counters;
  SequenceTracker tracker(counters);
  for (uint32_t s = 0; s < 8; ++s) {
    const uint64_t send = s < 4 ? 1'000'000 : 2'000'000;
    const uint64_t receive = (s < 4 ? 5'000'000 : 6'000'000) + (s % 4) * 10'000;
    tracker.on_datagram(s, send, receive, payload);
  }
  EXPECT_EQ(read(counters).jitter_ns, 0u);
  // A third batch 300 us late: one sample, |D| = 300000, J = 300000 / 16.
  tracker.on_datagram(8, 3'000'000, 7'300'000, payload);
  tracker.on_datagram(9, 3'000'000, 7'310'000, payload);
  EXPECT_EQ(read(counters).jitter_ns, 18750u);
}

TEST(SequenceTracker, AlternatingDelaysFollowTheRfc3550Recurrence) {
  // Sent every 1 ms, delays alternate 100 us / 200 us, so |D| = 100000 ns after the first:
  // J1 = 100000/16 = 6250, J2 = 6250 + 93750/16 = 12109.375,
  // J3 = 12109.375 + 87890.625/16 = 17602.5390625, J4 = J3 + (100000 - J3)/16 = 22752.3803710...
  const uint64_t wanted[] = {0, 6250, 12109, 17603, 22752};
  UdpFlowCounters counters;
  SequenceTracker tracker(counters);
  for (uint32_t s = 0; s < 5; ++s) {
    const uint64_t send = s * 1'000'000;
    const uint64_t delay = s % 2 == 0 ? 100'000 : 200'000;
    tracker.on_datagram(s, send, send + delay, payload);
    EXPECT_EQ(read(counters).jitter_ns, wanted[s]) << "after arrival " << s;
  }
  // Closed form for the same input: J_n = 100000 * (1 - (15/16)^n).
  for (int n = 1; n <= 4; ++n) {
    EXPECT_EQ(wanted[n],
              static_cast<uint64_t>(std::llround(100000 * (1 - std::pow(15.0 / 16, n)))));
  }
}

TEST(SequenceTracker, DuplicatesDoNotTouchJitter) {
  UdpFlowCounters counters;
  SequenceTracker tracker(counters);
  tracker.on_datagram(0, 0, 100'000, payload);
  tracker.on_datagram(1, 1'000'000, 1'200'000, payload);  // J = 6250
  tracker.on_datagram(1, 1'000'000, 9'999'999, payload);  // duplicate, wild time: ignored
  EXPECT_EQ(read(counters).jitter_ns, 6250u);
  // The next arrival is compared with sequence 1's transit (200 us), not the duplicate's:
  // D = 0, J = 6250 - 6250/16 = 5859.375.
  tracker.on_datagram(2, 2'000'000, 2'200'000, payload);
  EXPECT_EQ(read(counters).jitter_ns, 5859u);
}

TEST(SequenceTracker, ReorderedArrivalsUpdateJitterInArrivalOrder) {
  UdpFlowCounters counters;
  SequenceTracker tracker(counters);
  tracker.on_datagram(0, 0, 100'000, payload);
  tracker.on_datagram(2, 2'000'000, 2'100'000, payload);  // D = 0
  tracker.on_datagram(1, 1'000'000, 2'150'000, payload);  // transit 1150 us: D = 1050 us
  EXPECT_EQ(read(counters).jitter_ns, 65625u);            // 1050000 / 16
}

TEST(UdpFlowSnapshot, DeltasAndLostClamping) {
  Flow flow;
  const UdpFlowSnapshot start = flow.snapshot();
  flow.receive({0, 1, 3});
  const UdpFlowSnapshot first = flow.snapshot();
  flow.receive({2, 2, 4});  // the late 2 fills the first interval's gap
  flow.tracker.on_compat_datagram(10);
  const UdpFlowSnapshot second = flow.snapshot();

  const UdpFlowSnapshot d1 = first - start;
  expect_counts(d1, counts(3, 3, 0, 0, 4));
  EXPECT_EQ(d1.lost(), 1u);

  const UdpFlowSnapshot d2 = second - first;
  EXPECT_EQ(d2.datagrams, 4u);
  EXPECT_EQ(d2.bytes, 3 * payload + 10);
  EXPECT_EQ(d2.unique, 2u);
  EXPECT_EQ(d2.duplicates, 1u);
  EXPECT_EQ(d2.reordered, 1u);
  EXPECT_EQ(d2.expected, 1u);
  EXPECT_EQ(d2.compat_datagrams, 1u);
  EXPECT_EQ(d2.lost(), 0u);  // 1 newly expected - 2 newly received, clamped

  EXPECT_EQ((second - start).lost(), 0u);
  EXPECT_EQ(second - start, (UdpFlowSnapshot{7, 6 * payload + 10, 5, 1, 1, 5, 0, 1}));
}

TEST(UdpFlowSnapshot, JitterOfADeltaIsTheLaterLevel) {
  UdpFlowSnapshot earlier{10, 1000, 10, 0, 0, 10, 500, 0};
  UdpFlowSnapshot later{20, 2000, 18, 1, 1, 21, 300, 0};
  const UdpFlowSnapshot d = later - earlier;
  EXPECT_EQ(d.jitter_ns, 300u);
  EXPECT_EQ(d.expected, 11u);
  EXPECT_EQ(d.unique, 8u);
  EXPECT_EQ(d.lost(), 3u);
  // Swapped arguments clamp every count at 0 rather than wrapping.
  EXPECT_EQ(earlier - later, (UdpFlowSnapshot{0, 0, 0, 0, 0, 0, 500, 0}));
}

// Reference model: the same definitions, written the obvious way over a std::set.
struct Reference {
  explicit Reference(uint64_t duplicate_window) : window(duplicate_window) {}

  uint64_t window;
  std::set<uint64_t> received;
  bool started = false;
  uint64_t highest = 0;
  uint64_t origin = 0;  // a first arrival past the first window starts the count
  UdpFlowSnapshot s;
  bool have_transit = false;
  uint64_t previous_transit = 0;
  double jitter = 0;
  uint64_t too_old = 0;  // arrivals beyond the window, whether really duplicates or not

  void on_datagram(uint64_t extended, uint64_t send, uint64_t receive, uint32_t bytes) {
    ++s.datagrams;
    s.bytes += bytes;
    if (started && extended <= highest && highest - extended < window &&
        received.count(extended) != 0) {
      ++s.duplicates;
      return;
    }
    ++s.unique;
    if (started && extended < highest) ++s.reordered;
    if (started && extended < highest && highest - extended >= window) ++too_old;
    if (!started && extended >= window) origin = extended;
    if (!started || extended > highest) highest = extended;
    started = true;
    received.insert(extended);
    s.expected = highest + 1 - origin;
    const uint64_t transit = receive - send;
    if (have_transit) {
      jitter += (std::fabs(static_cast<double>(static_cast<int64_t>(transit - previous_transit))) -
                 jitter) /
                16.0;
      s.jitter_ns = static_cast<uint64_t>(std::llround(jitter));
    }
    have_transit = true;
    previous_transit = transit;
  }
};

struct RandomCase {
  // Extended sequence of the first datagram sent; the tracker puts the first arrival in cycle 0,
  // so it stays below 2^32 (past the first window, the count starts at the first arrival).
  uint64_t first;
  uint32_t window;
  unsigned seed;
};

class SequenceTrackerRandom : public testing::TestWithParam<RandomCase> {};

TEST_P(SequenceTrackerRandom, MatchesReferenceModel) {
  const RandomCase param = GetParam();
  std::mt19937_64 rng(param.seed);
  constexpr uint64_t sent = 20000;
  constexpr double drop = 0.05, duplicate = 0.03;
  constexpr uint64_t displacement = 40;        // ordinary reordering, well inside the window
  constexpr uint64_t far_displacement = 3000;  // some duplicates come back after the window

  struct Arrival {
    double key;
    uint64_t extended;
  };
  std::vector<Arrival> arrivals;
  std::uniform_real_distribution<double> unit(0, 1);
  for (uint64_t i = 0; i < sent; ++i) {
    const uint64_t extended = param.first + i;
    if (unit(rng) < drop) continue;
    const double jitter_key = unit(rng) < 0.2 ? unit(rng) * displacement : 0;
    arrivals.push_back({static_cast<double>(i) + jitter_key, extended});
    if (unit(rng) < duplicate) {
      arrivals.push_back({static_cast<double>(i) + unit(rng) * far_displacement, extended});
    }
  }
  std::stable_sort(arrivals.begin(), arrivals.end(),
                   [](const Arrival& a, const Arrival& b) { return a.key < b.key; });

  UdpFlowCounters counters;
  SequenceTracker tracker(counters, param.window);
  Reference reference{tracker.duplicate_window()};
  std::uniform_int_distribution<uint64_t> delay(50'000, 250'000);
  uint64_t receive_clock = 777;
  for (std::size_t index = 0; index < arrivals.size(); ++index) {
    const Arrival& arrival = arrivals[index];
    const uint64_t send = (arrival.extended - param.first) * 10'000;
    receive_clock += 10'000;
    const uint64_t receive = std::max(receive_clock, send + delay(rng));
    const uint32_t bytes = 64 + static_cast<uint32_t>(arrival.extended % 1400);
    tracker.on_datagram(static_cast<uint32_t>(arrival.extended), send, receive, bytes);
    reference.on_datagram(arrival.extended, send, receive, bytes);
    if (index % 997 == 0) {
      ASSERT_EQ(read(counters), reference.s) << "at arrival " << index;
    }
  }
  const UdpFlowSnapshot result = read(counters);
  EXPECT_EQ(result, reference.s);
  // The case exercises what it claims: drops, duplicates (seen and too old), reordering, jitter.
  EXPECT_GT(result.lost(), 0u);
  EXPECT_GT(result.duplicates, 0u);
  EXPECT_GT(result.reordered, 0u);
  EXPECT_GT(result.jitter_ns, 0u);
  EXPECT_EQ(result.datagrams, arrivals.size());
  if (tracker.duplicate_window() < far_displacement) {
    EXPECT_GT(reference.too_old, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(
    FixedSeeds, SequenceTrackerRandom,
    testing::Values(RandomCase{0, 65536, 1}, RandomCase{0, 1024, 2},
                    RandomCase{two32 - 10000, 1024, 3},  // wraps in the middle of the flow
                    RandomCase{two32 - 10000, 64, 4}, RandomCase{two32 - 100, 4096, 5}));

}  // namespace
}  // namespace xttcp::udp
