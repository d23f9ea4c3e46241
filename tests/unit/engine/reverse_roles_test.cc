// A --reverse or --bidir test's data roles at each end (engine/run/reverse_roles.hh), and how
// --bidir's two directions share the CPU figures.
#include "engine/run/reverse_roles.hh"

#include <gtest/gtest.h>

#include "engine/run/result_builder.hh"
#include "engine/run/second_direction.hh"
#include "specs.hh"

namespace xttcp {
namespace {

TEST(ReverseRoles, TheSendersEndReceivesOnEveryConnectionItMakes) {
  TestSpec own = test::sender_spec(2, 3, 2);
  own.workload.reverse = true;
  own.layout.one_port = true;
  own.layout.source_base_port = 25001;
  const TestSpec receiving = reverse_receiving_spec(own);
  EXPECT_EQ(receiving.role, Role::receiver);
  EXPECT_EQ(receiving.layout.ports, 12u);  // one flow per connection, 2 x 3 x 2
  EXPECT_EQ(receiving.layout.threads_per_port, 1u);
  EXPECT_EQ(receiving.layout.conns_per_thread, 1u);
  EXPECT_EQ(receiving.workload.recv_buffer, own.workload.recv_buffer);
  EXPECT_EQ(receiving.workload.duration_s, own.workload.duration_s);
}

TEST(ReverseRoles, TheReceiversEndSendsTheSendersWorkloadOnItsOwnPlacement) {
  TestSpec own = test::sender_spec(8, 1, 1);
  own.role = Role::receiver;
  own.layout.one_port = true;
  own.layout.pin_workers = true;
  TestSpec asked = test::sender_spec(2, 2, 1);
  asked.workload.reverse = true;
  asked.workload.send_buffer = 1 << 20;
  asked.workload.rate_limit_bps = 1'000'000'000;
  asked.workload.duration_s = 7;
  asked.layout.pin_workers = false;
  auto sending = reverse_sending_spec(own, asked);
  ASSERT_TRUE(sending) << sending.error().message;
  EXPECT_EQ(sending->role, Role::sender);
  EXPECT_EQ(sending->sender_connections(), 4u);
  EXPECT_EQ(sending->workload.send_buffer, 1u << 20);
  EXPECT_EQ(sending->workload.rate_limit_bps, 1'000'000'000u);
  EXPECT_EQ(sending->workload.duration_s, 7u);
  EXPECT_TRUE(sending->layout.pin_workers);  // this end's placement, not the peer's
}

TEST(ReverseRoles, APeerCannotMakeTheReceiverSendHugeBuffers) {
  TestSpec own = test::sender_spec(1, 1, 1);
  own.role = Role::receiver;
  TestSpec asked = test::sender_spec(1, 1, 1);
  asked.workload.send_buffer = max_reverse_send_bytes + 1;
  auto refused = reverse_sending_spec(own, asked);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("16 MiB per call"), std::string::npos)
      << refused.error().message;
  asked.workload.send_buffer = max_reverse_send_bytes;
  EXPECT_TRUE(reverse_sending_spec(own, asked));
  // --bidir's line names --bidir.
  asked.workload.bidir = true;
  asked.workload.send_buffer = max_reverse_send_bytes + 1;
  auto bidir = reverse_sending_spec(own, asked);
  ASSERT_FALSE(bidir);
  EXPECT_EQ(bidir.error().message.rfind("--bidir: ", 0), 0u) << bidir.error().message;
}

// A hello asking a UDP receiver (or asking UDP) to send back is refused: its streams are TCP.
TEST(ReverseRoles, OnlyTcpStreamsGoBack) {
  TestSpec own = test::sender_spec(1, 1, 1);
  own.role = Role::receiver;
  TestSpec asked = test::sender_spec(1, 1, 1);
  asked.workload.bidir = true;
  asked.workload.protocol = Protocol::udp;
  auto refused = reverse_sending_spec(own, asked);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message, "--bidir: TCP streams only; this test is UDP");
  asked.workload.protocol = Protocol::tcp;
  own.workload.protocol = Protocol::udp;
  EXPECT_FALSE(reverse_sending_spec(own, asked));
  own.workload.protocol = Protocol::tcp;
  auto sending = reverse_sending_spec(own, asked);
  ASSERT_TRUE(sending);
  EXPECT_TRUE(sending->workload.bidir);
  EXPECT_FALSE(sending->workload.reverse);  // as its sender asked: --bidir, not --reverse
}

// --bidir: the other end's second-direction result comes inside its result and goes to ours;
// none there is a line; outside --bidir one is dropped.
TEST(SecondDirection, ThePeersSecondResultIsTakenOutOrDropped) {
  Result back_peer;
  back_peer.role = Role::receiver;
  back_peer.duration_s = 2;
  back_peer.total_bytes = 1000;
  Result peer;
  peer.role = Role::sender;
  peer.other_direction = std::make_shared<const Result>(back_peer);
  Result own;
  own.role = Role::sender;
  EXPECT_EQ(take_second_peer(peer, own), std::nullopt);
  EXPECT_FALSE(peer.other_direction);
  ASSERT_TRUE(own.peer);
  EXPECT_EQ(own.peer->total_bytes, 1000u);
  Result none;
  const std::optional<std::string> missing = take_second_peer(none, own);
  ASSERT_TRUE(missing);
  EXPECT_EQ(*missing, "--bidir: the other end sent no result for the second direction");
  Result stray;
  stray.other_direction = std::make_shared<const Result>(back_peer);
  drop_other_direction(stray);
  EXPECT_FALSE(stray.other_direction);
}

// A second direction whose window never opened has no result, and says why in one line.
TEST(SecondDirection, AWindowThatNeverOpenedIsNoResult) {
  SecondDirection side;
  side.window.stop = {StopCause::interrupted, "interrupted by signal"};
  auto built = side.result("epoll", HostInfo{}, 3, {});
  ASSERT_FALSE(built);
  EXPECT_EQ(built.error().message,
            "--bidir: the test ended before the second direction's window began: interrupted by "
            "signal");
}

// --bidir: the host's CPU moved both directions, so cycles/byte counts both directions' bytes.
TEST(ReverseRoles, BothDirectionsShareTheHostsCycles) {
  Result forth;
  forth.total_bytes = 3'000;
  forth.cpu.cycles_per_byte = 4.0;  // the whole window's cycles over 3,000 bytes
  Result back;
  back.total_bytes = 1'000;
  back.cpu.cycles_per_byte = 12.0;  // the same cycles over 1,000 bytes
  share_cpu_between_directions(forth, back);
  EXPECT_DOUBLE_EQ(forth.cpu.cycles_per_byte, 3.0);
  EXPECT_DOUBLE_EQ(back.cpu.cycles_per_byte, 3.0);
  ASSERT_EQ(forth.notes.size(), 1u);
  EXPECT_NE(forth.notes[0].find("4000 bytes"), std::string::npos) << forth.notes[0];
}

}  // namespace
}  // namespace xttcp
