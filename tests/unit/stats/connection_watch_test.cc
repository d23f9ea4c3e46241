// ConnectionWatch (the connections whose TCP_INFO the intervals hold, and with tallies each one's
// receives) and interval_figures (the per-interval figures from two readings): pure arithmetic,
// and the watch on real sockets. ReadSizeBinning: iperf 2's bins of read sizes.
#include "engine/stats/connection_watch.hh"

#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace xttcp {
namespace {

ConnectionWatch::Reading reading(uint32_t id, uint64_t acked, uint64_t received, uint32_t retrans,
                                 uint64_t busy_us, uint32_t rtt_us) {
  TcpSample s;
  s.bytes_acked = acked;
  s.bytes_received = received;
  s.total_retrans = retrans;
  s.busy_us = busy_us;
  s.rtt_us = rtt_us;
  s.snd_cwnd = 10;
  return {id, 0, s, {}, std::nullopt};
}

TEST(IntervalFigures, CountsAreChangesAndGaugesAreTheLatest) {
  const std::vector<ConnectionWatch::Reading> before = {reading(0, 1000, 0, 2, 500, 90),
                                                        reading(2, 5000, 0, 0, 100, 80)};
  const std::vector<ConnectionWatch::Reading> now = {reading(0, 4000, 0, 5, 900, 120),
                                                     reading(1, 700, 0, 1, 50, 60),  // new
                                                     reading(2, 9000, 0, 0, 300, 70)};
  const std::vector<ConnectionInterval> sender = interval_figures(before, now, Role::sender);
  ASSERT_EQ(sender.size(), 3u);
  EXPECT_EQ(sender[0].id, 0u);
  EXPECT_EQ(sender[0].bytes, 3000u);
  EXPECT_EQ(sender[0].retransmits, 3u);
  EXPECT_EQ(sender[0].busy_us, 400u);
  EXPECT_EQ(sender[0].rtt_us, 120u);  // as read at the interval's end
  EXPECT_EQ(sender[1].bytes, 700u) << "a connection new in the interval counts from 0";
  EXPECT_EQ(sender[1].retransmits, 1u);
  EXPECT_EQ(sender[2].bytes, 4000u);
  EXPECT_EQ(sender[2].snd_cwnd, 10u);
}

TEST(IntervalFigures, ReceiversCountReceivedBytesAndNothingGoesBackwards) {
  const std::vector<ConnectionWatch::Reading> before = {reading(3, 0, 800, 4, 0, 0)};
  const std::vector<ConnectionWatch::Reading> now = {reading(3, 0, 2800, 1, 0, 0)};
  const std::vector<ConnectionInterval> receiver = interval_figures(before, now, Role::receiver);
  ASSERT_EQ(receiver.size(), 1u);
  EXPECT_EQ(receiver[0].bytes, 2000u);
  EXPECT_EQ(receiver[0].retransmits, 0u) << "a count that went backwards gives 0, not 2^32 - 3";
}

struct Socket {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ~Socket() { ::close(fd); }
};

TEST(ConnectionWatch, BoundedIdsNeverReusedAndAddressesOnlyOnce) {
  Socket a, b, c, d;
  ConnectionWatch watch(2);
  const uint32_t first = watch.add(a.fd);
  const uint32_t second = watch.add(b.fd);
  EXPECT_EQ(watch.add(c.fd), ConnectionWatch::not_watched) << "past the capacity";
  EXPECT_EQ(watch.not_watched_count(), 1u);
  EXPECT_NE(first, second);

  std::vector<ConnectionWatch::Reading> all = watch.read(0);
  ASSERT_EQ(all.size(), 2u);  // a TCP socket that never connected still has TCP_INFO
  EXPECT_TRUE(all[0].who.has_value() && all[1].who.has_value());
  EXPECT_EQ(all[0].id, first);
  EXPECT_EQ(all[0].who->id, first);

  watch.remove(first);
  const uint32_t third = watch.add(d.fd);
  EXPECT_GT(third, second) << "ids only grow, so a reader knows what it has seen";
  all = watch.read(second + 1);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].id, first) << "the removed one's last reading, once";
  EXPECT_FALSE(all[0].who.has_value());
  EXPECT_EQ(all[1].id, second);
  EXPECT_FALSE(all[1].who.has_value()) << "seen before: no addresses again";
  EXPECT_EQ(all[2].id, third);
  EXPECT_TRUE(all[2].who.has_value());

  watch.remove(ConnectionWatch::not_watched);  // never watched: nothing to do
  EXPECT_EQ(watch.read(0).size(), 2u) << "the removed one is read no more";
}

// A connection that opens and closes between two reads is still read once, with its addresses.
TEST(ConnectionWatch, OpenedAndClosedBetweenReads) {
  Socket a;
  ConnectionWatch watch(4);
  const uint32_t id = watch.add(a.fd);
  watch.remove(id);
  std::vector<ConnectionWatch::Reading> all = watch.read(0);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].id, id);
  EXPECT_TRUE(all[0].who.has_value());
  EXPECT_TRUE(watch.read(0).empty());
}

// With tallies, each watched connection has its own, zeroed, read with its TCP_INFO and kept in
// its last reading; one freed is zeroed again for the next connection.
TEST(ConnectionWatch, TalliesAreReadWithTheConnections) {
  Socket a, b;
  ConnectionWatch watch(1, true);
  const ReadSizeBinning binning(128 * 1024);
  StreamTally* tally = nullptr;
  const uint32_t id = watch.add(a.fd, 3, &tally);
  ASSERT_NE(tally, nullptr);
  binning.count(*tally, 1000);
  binning.count(*tally, 131072);
  std::vector<ConnectionWatch::Reading> all = watch.read(0);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].slot, 3u);
  EXPECT_EQ(all[0].tally.bytes, 132072u);
  EXPECT_EQ(all[0].tally.sizes.reads, 2u);
  binning.count(*tally, 20000);
  watch.remove(id);
  all = watch.read(0);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].tally.sizes.reads, 3u) << "the last counts come with the last reading";
  StreamTally* next = nullptr;
  watch.add(b.fd, 0, &next);
  EXPECT_EQ(next, tally) << "one tally a watched connection: the freed one serves again";
  EXPECT_EQ(next->read().bytes, 0u);
  EXPECT_EQ(watch.add(a.fd, 0, &next), ConnectionWatch::not_watched);
  EXPECT_EQ(next, nullptr) << "not watched: not tallied";
}

TEST(ConnectionWatch, WithoutTalliesNoneIsGiven) {
  Socket a;
  ConnectionWatch watch(2);
  StreamTally somewhere;
  StreamTally* tally = &somewhere;
  watch.add(a.fd, 0, &tally);
  EXPECT_EQ(tally, nullptr);
}

// iperf 2's bins (its server's reporter: bin (n - 1) / (-l / 8), counted while below 8), as
// Debian's iperf 2.1.8 -s -e shows them: "Read buffer size: 128 KByte (Dist bin width=16.0
// KByte)", full 128 KB reads in the last bin.
TEST(ReadSizeBinning, IperfsEightBinsOfAnEighthOfTheLength) {
  const ReadSizeBinning binning(128 * 1024);
  EXPECT_EQ(binning.width(), 16384u);
  StreamTally tally;
  for (uint64_t n : {1ull, 16384ull, 16385ull, 65536ull, 131071ull, 131072ull})
    binning.count(tally, n);
  ReadSizes expected;
  expected.reads = 6;
  expected.bins = {2, 1, 0, 1, 0, 0, 0, 2};
  EXPECT_EQ(tally.read().sizes, expected);
  EXPECT_EQ(tally.read().bytes, 1 + 16384 + 16385 + 65536 + 131071 + 131072u);
}

TEST(ReadSizeBinning, ALongerReceiveCountsAsReadsOfTheLength) {
  // MSG_TRUNC and io_uring bundles take more than -l at once.
  const ReadSizeBinning binning(1000);
  StreamTally tally;
  binning.count(tally, 2500);
  ReadSizes expected;
  expected.reads = 3;
  expected.bins = {0, 0, 0, 1, 0, 0, 0, 2};  // 1000 twice (bins of 125 bytes: 7), 500 (3)
  EXPECT_EQ(tally.read().sizes, expected);
  EXPECT_EQ(tally.read().bytes, 2500u);
}

TEST(ReadSizeBinning, LengthsBelowEightStillHaveBins) {
  // -l 10: bins one byte wide; a read past the eighth bin is counted, as iperf 2 counts it.
  const ReadSizeBinning binning(10);
  EXPECT_EQ(binning.width(), 1u);
  StreamTally tally;
  binning.count(tally, 10);
  binning.count(tally, 3);
  ReadSizes expected;
  expected.reads = 2;
  expected.bins[2] = 1;
  EXPECT_EQ(tally.read().sizes, expected);
}

}  // namespace
}  // namespace xttcp
