// ConnectionWatch (the connections whose TCP_INFO the intervals hold) and interval_figures (the
// per-interval figures from two readings): pure arithmetic, and the watch on real sockets.
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
  return {id, s, std::nullopt};
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

}  // namespace
}  // namespace xttcp
