// -sp on the receiver (port_handout.hh): every port once, then only one a peer took and never
// used, after handout_claim_wait; never a port in use.
#include "engine/control/port_handout.hh"

#include <gtest/gtest.h>

#include <set>

#include "engine/control/windows_token.hh"

namespace xttcp {
namespace {

using HandoutClock = PortHandout::Clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

const HandoutClock::time_point h0 = HandoutClock::time_point() + seconds(1000);
constexpr auto claim_wait = windows_token::handout_claim_wait;

struct Handout {
  std::set<uint16_t> in_use;
  PortHandout handout{5002, 3, [this](uint16_t port) { return in_use.count(port) > 0; }};
  uint16_t take(HandoutClock::time_point now) {
    const PortHandout::Next next = handout.next(now);
    EXPECT_TRUE(next.port);
    handout.handed_out(*next.port, now);
    return *next.port;
  }
};

TEST(PortHandout, EveryPortGoesOutOnceLowestFirst) {
  Handout h;
  EXPECT_EQ(h.take(h0), 5002);
  EXPECT_EQ(h.take(h0), 5003);
  EXPECT_EQ(h.take(h0), 5004);
}

// A peer took 5002 and never used it: it goes to the next connection once claim_wait has passed
// since, not before (that one waits), and never while it is in use.
TEST(PortHandout, AnUnclaimedPortGoesAgainAfterTheClaimWait) {
  Handout h;
  h.take(h0);               // 5002: the peer's
  h.take(h0 + seconds(1));  // 5003
  h.take(h0 + seconds(1));  // 5004
  h.in_use = {5003, 5004};  // the sender's threads connected to theirs
  const PortHandout::Next early = h.handout.next(h0 + seconds(2));
  EXPECT_FALSE(early.port);
  ASSERT_TRUE(early.retry);
  EXPECT_EQ(*early.retry, h0 + claim_wait);
  const PortHandout::Next due = h.handout.next(h0 + claim_wait);
  EXPECT_EQ(due.port, std::optional<uint16_t>(5002));
}

TEST(PortHandout, TheOldestUnclaimedHandOutGoesFirst) {
  Handout h;
  h.take(h0 + seconds(2));  // 5002
  h.take(h0);               // 5003, handed out earlier
  h.take(h0 + seconds(1));  // 5004
  EXPECT_EQ(h.handout.next(h0 + seconds(2) + claim_wait).port, std::optional<uint16_t>(5003));
  h.in_use = {5003};
  EXPECT_EQ(h.handout.next(h0 + seconds(2) + claim_wait).port, std::optional<uint16_t>(5004));
}

TEST(PortHandout, WithEveryPortInUseNoneWillFree) {
  Handout h;
  for (int i = 0; i < 3; ++i) h.take(h0);
  h.in_use = {5002, 5003, 5004};
  const PortHandout::Next next = h.handout.next(h0 + claim_wait * 10);
  EXPECT_FALSE(next.port);
  EXPECT_FALSE(next.retry);
}

}  // namespace
}  // namespace xttcp
