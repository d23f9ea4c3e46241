// The pure pieces every --rr data path shares (io_backends/common/rr_flow.hh, docs/rr.md): the
// TCP requester's send times in flight and its count of whole responses, the UDP stamp, and the
// UDP requester's window with its loss pause. Built into the Linux unit tests and, since the
// iocp backend uses the same header, into the Windows ones (run under Wine).
#include <gtest/gtest.h>

#include "io_backends/common/rr_flow.hh"

namespace xttcp {
namespace {

TEST(RrFlow, StampQueueIsFirstInFirstOutAroundItsRing) {
  StampQueue stamps(3);
  for (uint64_t t = 1; t <= 3; ++t) stamps.push(t);
  EXPECT_TRUE(stamps.full());
  EXPECT_EQ(stamps.pop(), 1u);
  stamps.push(4);  // wraps
  EXPECT_EQ(stamps.size(), 3u);
  EXPECT_EQ(stamps.pop(), 2u);
  EXPECT_EQ(stamps.pop(), 3u);
  EXPECT_EQ(stamps.pop(), 4u);
  EXPECT_EQ(stamps.size(), 0u);
}

TEST(RrFlow, MessageCounterCountsWholeMessagesAcrossReads) {
  MessageCounter responses(300);
  EXPECT_EQ(responses.add(100), 0u);
  EXPECT_EQ(responses.add(250), 1u);  // 350: one whole, 50 over
  EXPECT_EQ(responses.add(850), 3u);  // 900: three whole
  EXPECT_EQ(responses.add(299), 0u);  // 299
  EXPECT_EQ(responses.add(1), 1u);
  MessageCounter bytes(1);
  EXPECT_EQ(bytes.add(7), 7u);
}

TEST(RrFlow, StampRoundTripsThroughADatagram) {
  unsigned char datagram[16] = {};
  write_rr_stamp(datagram, 0x0123456789abcdefULL);
  EXPECT_EQ(read_rr_stamp(datagram), 0x0123456789abcdefULL);
}

TEST(RrFlow, UdpWindowKeepsDepthInFlight) {
  UdpRrWindow window(2, 1000);
  window.refilled(10);
  EXPECT_TRUE(window.room());
  window.sent();
  window.sent();
  EXPECT_FALSE(window.room());
  EXPECT_EQ(window.in_flight(), 2u);
  EXPECT_TRUE(window.answer(10, 50));  // stamped at 10, back at 50
  EXPECT_EQ(window.in_flight(), 1u);
  EXPECT_TRUE(window.room());
}

TEST(RrFlow, UdpWindowRefusesStampsNotOurs) {
  UdpRrWindow window(4, 1000);
  window.refilled(100);
  window.sent();
  EXPECT_FALSE(window.answer(0, 200));    // nothing is stamped 0
  EXPECT_FALSE(window.answer(300, 200));  // from the future: not our clock
  EXPECT_EQ(window.in_flight(), 1u);
  EXPECT_TRUE(window.answer(200, 200));  // sent and back within one tick
  EXPECT_EQ(window.in_flight(), 0u);
}

TEST(RrFlow, UdpWindowGivesUpAfterTheLossPauseAndIgnoresLateAnswers) {
  UdpRrWindow window(3, 1000);
  window.refilled(100);
  for (int i = 0; i < 3; ++i) window.sent();
  EXPECT_FALSE(window.quiet(1099));  // heard from within the pause
  EXPECT_TRUE(window.quiet(1100));
  EXPECT_EQ(window.give_up(1100), 3u);
  EXPECT_EQ(window.in_flight(), 0u);
  window.refilled(1100);
  window.sent();                           // a new request, stamped 1100
  EXPECT_FALSE(window.answer(100, 1150));  // the answer to one given up: stale
  EXPECT_EQ(window.in_flight(), 1u);
  EXPECT_TRUE(window.answer(1100, 1160));
  EXPECT_FALSE(window.quiet(1200));
  EXPECT_EQ(window.give_up(3000), 0u);  // nothing in flight: nothing lost
}

TEST(RrFlow, UdpWindowOfDepthZeroHoldsOne) {
  UdpRrWindow window(0, 1000);
  EXPECT_TRUE(window.room());
  window.sent();
  EXPECT_FALSE(window.room());
}

}  // namespace
}  // namespace xttcp
