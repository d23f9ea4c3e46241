// The pure pieces every --rr data path shares (io_backends/common/rr_flow.hh, docs/rr.md): the
// TCP requester's send times in flight and its count of whole responses, the UDP stamp, and the
// UDP requester's window with its loss pause, and who a UDP responder answers (rr_udp_gate.hh).
// Built into the Linux unit tests and, since the iocp backend uses the same headers, into the
// Windows ones (run under Wine).
#include <gtest/gtest.h>

#include <vector>

#include "engine/udp/flow_admission.hh"
#include "io_backends/common/rr_flow.hh"
#include "io_backends/common/rr_udp_gate.hh"

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

// A forged source never gets back more bytes than it sent: nothing shorter than a request is
// answered, and a larger answer goes only to a request naming a declared flow with its token.
TEST(RrFlow, AUdpResponderAnswersNoStrangerWithMoreThanItSent) {
  constexpr uint32_t base = 9u << udp::flow_slot_bits;
  udp::FlowAdmission admission;
  UdpRrGate same(64, 64, &admission);
  std::vector<unsigned char> request(64, 0);
  EXPECT_EQ(same.answer(request.data(), 1, 1), 0u);  // 1 byte: 64 back, before
  EXPECT_EQ(same.answer(request.data(), 63, 63), 0u);
  EXPECT_EQ(same.answer(request.data(), 64, 64), 64u);  // as large as it came: anyone
  UdpRrGate larger(64, 1000, &admission);
  EXPECT_EQ(larger.answer(request.data(), 64, 64), 0u);  // no test yet: nobody proven
  admission.declare(std::vector<udp::DeclaredFlows>{{base, 2, 0x1234}});
  EXPECT_EQ(larger.answer(request.data(), 64, 64), 0u);  // no proof in it
  prove_rr_requests(
      request.data(), 1, 64,
      [] {
        WorkerContext context;
        context.udp_flow_base = base;
        context.udp_flow_token = 0x1234;
        return context;
      }(),
      1);
  EXPECT_EQ(larger.answer(request.data(), 64, 64), 1000u);  // flow base | 1, its token
  write_rr_proof(request.data(), base | 2, 0x1234);         // a flow past the declared count
  EXPECT_EQ(larger.answer(request.data(), 64, 64), 0u);
  write_rr_proof(request.data(), base | 1, 0x1235);  // the wrong token
  EXPECT_EQ(larger.answer(request.data(), 64, 64), 0u);
  EXPECT_EQ(larger.answer(request.data(), 13, 64), 0u);  // the proof not read whole (MSG_TRUNC)
  UdpRrGate unsafe(64, 1000, nullptr);                   // no declarations in this run (-N)
  write_rr_proof(request.data(), base | 1, 0x1234);
  EXPECT_EQ(unsafe.answer(request.data(), 64, 64), 0u);
  WorkerReport report;
  larger.note(report);
  ASSERT_EQ(report.notes.size(), 1u);
  EXPECT_NE(report.notes[0].find("5 datagram(s) not answered: 0 shorter than a request (64 "
                                 "bytes), 5 asking a 1000-byte answer"),
            std::string::npos)
      << report.notes[0];
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
