// ReceiverSync against scripted request sequences (NTTTCP-for-Linux's rules, receiver_sync.hh).
#include "engine/control/receiver_sync.hh"

#include <gtest/gtest.h>

#include <vector>

#include "engine/control/sync_codes.hh"

namespace xttcp {
namespace {

using namespace sync_code;

ReceiverSync make(uint32_t duration_s, bool multi = false, uint32_t max_cycle_s = 3600) {
  ReceiverSync::Config config;
  config.duration_s = duration_s;
  config.own_cycle_s = duration_s;
  config.multi_clients = multi;
  config.max_cycle_s = max_cycle_s;
  return ReceiverSync(config);
}

// The single reply to `peer`, or -1 if the outcome does not hold exactly one reply for it.
int32_t only_reply(const ReceiverSync::Outcome& outcome, int peer) {
  if (outcome.replies.size() != 1 || outcome.replies[0].peer != peer) return -1;
  return outcome.replies[0].value;
}

TEST(ReceiverSync, ObservedExchange) {  // as observed with the original: sender -W 1 -t 3 -C 1
  auto sync = make(3);
  auto x = sync.on_request(1, kQueryState);
  EXPECT_EQ(only_reply(x, 1), kStateNotStarted);
  auto proposal = sync.on_request(1, 5);
  EXPECT_EQ(only_reply(proposal, 1), 5);
  ASSERT_TRUE(proposal.negotiated_cycle_s);
  EXPECT_EQ(*proposal.negotiated_cycle_s, 5u);
  EXPECT_EQ(sync.negotiated_cycle_s(), 5u);
  EXPECT_FALSE(proposal.start);
  auto r = sync.on_request(1, kStart);
  EXPECT_EQ(only_reply(r, 1), kStart);
  EXPECT_TRUE(r.start);
  EXPECT_EQ(sync.state(), kStateRunning);
  auto e = sync.on_request(1, kEarlyExit);
  EXPECT_EQ(only_reply(e, 1), kStateFinished);
  EXPECT_TRUE(e.stop_early);
  EXPECT_EQ(sync.state(), kStateFinished);
}

TEST(ReceiverSync, BusyWhileRunning) {
  auto sync = make(10);
  sync.on_request(1, 10);
  sync.on_request(1, kStart);
  EXPECT_EQ(only_reply(sync.on_request(2, kQueryState), 2), kStateRunning);
}

TEST(ReceiverSync, EarlyExitWhenNotRunningOnlyReportsState) {
  auto sync = make(10);
  auto e = sync.on_request(1, kEarlyExit);
  EXPECT_EQ(only_reply(e, 1), kStateNotStarted);
  EXPECT_FALSE(e.stop_early);
  EXPECT_EQ(sync.state(), kStateNotStarted);
}

TEST(ReceiverSync, NegotiationTakesTheLargerOfReceiverDurationAndProposal) {
  auto longer = make(10);
  auto outcome = longer.on_request(1, 15);
  EXPECT_EQ(only_reply(outcome, 1), 15);
  ASSERT_EQ(outcome.log_info.size(), 1u);
  EXPECT_EQ(outcome.log_info[0], "Test cycle time negotiated is: 15 seconds");

  auto shorter = make(10);
  outcome = shorter.on_request(1, 7);
  EXPECT_EQ(only_reply(outcome, 1), 10);
  EXPECT_TRUE(outcome.log_info.empty());
  EXPECT_EQ(shorter.negotiated_cycle_s(), 10u);
}

TEST(ReceiverSync, NegotiationProposalZeroMeansContinuousWhereTheReceiverAllowsIt) {
  auto sync = make(10, false, 0);  // --max-cycle 0: no limit
  auto outcome = sync.on_request(1, 0);
  EXPECT_EQ(only_reply(outcome, 1), 0);
  EXPECT_EQ(sync.negotiated_cycle_s(), 0u);
  ASSERT_EQ(outcome.log_info.size(), 1u);
  EXPECT_EQ(outcome.log_info[0], "test is negotiated to run with continuous mode");
}

// A sender's word never holds a receiver for ever: continuous mode takes the receiver's leave.
TEST(ReceiverSync, NegotiationProposalZeroGetsTheLongestCycleAllowed) {
  auto sync = make(10, false, 600);
  auto outcome = sync.on_request(1, 0);
  EXPECT_EQ(only_reply(outcome, 1), 600);
  EXPECT_EQ(sync.negotiated_cycle_s(), 600u);
  ASSERT_EQ(outcome.log_error.size(), 1u);
  EXPECT_NE(outcome.log_error[0].find("--max-cycle"), std::string::npos);
}

TEST(ReceiverSync, NegotiationContinuousReceiverMakesSenderContinuous) {
  auto sync = make(0);
  EXPECT_EQ(only_reply(sync.on_request(1, 25), 1), 0);
  EXPECT_EQ(sync.negotiated_cycle_s(), 0u);
  auto zero = sync.on_request(1, 0);  // both continuous: nothing to announce
  EXPECT_EQ(only_reply(zero, 1), 0);
  EXPECT_TRUE(zero.log_info.empty());
}

TEST(ReceiverSync, NegotiationMultiClientUsesReceiverDuration) {
  auto sync = make(30, /*multi=*/true);
  EXPECT_EQ(only_reply(sync.on_request(1, 100), 1), 30);
  EXPECT_EQ(only_reply(sync.on_request(2, 0), 2), 30);
  EXPECT_EQ(only_reply(sync.on_request(3, 5), 3), 30);
  EXPECT_EQ(sync.negotiated_cycle_s(), 30u);
}

TEST(ReceiverSync, NegativeNonHelloProposalGetsReceiverDuration) {
  auto sync = make(20);
  EXPECT_EQ(only_reply(sync.on_request(1, -5), 1), 20);
  EXPECT_EQ(sync.negotiated_cycle_s(), 20u);
  auto continuous = make(0);
  EXPECT_EQ(only_reply(continuous.on_request(1, -5), 1), 0);
}

TEST(ReceiverSync, CycleWithoutProposalIsTheReceiversOwn) {
  ReceiverSync sync({.multi_clients = false, .duration_s = 10, .own_cycle_s = 14});
  EXPECT_EQ(sync.negotiated_cycle_s(), 14u);
  EXPECT_TRUE(sync.on_request(1, kStart).start);
  EXPECT_EQ(sync.negotiated_cycle_s(), 14u);
}

TEST(ReceiverSync, ContinuousModeRun) {
  auto sync = make(0);
  EXPECT_EQ(only_reply(sync.on_request(1, kQueryState), 1), kStateNotStarted);
  EXPECT_EQ(only_reply(sync.on_request(1, 0), 1), 0);
  auto r = sync.on_request(1, kStart);
  EXPECT_TRUE(r.start);
  EXPECT_EQ(only_reply(r, 1), kStart);
  EXPECT_EQ(sync.negotiated_cycle_s(), 0u);
  EXPECT_EQ(only_reply(sync.on_request(2, kQueryState), 2), kStateRunning);
}

TEST(ReceiverSync, MultiClientThreeSenders) {
  auto sync = make(10, /*multi=*/true);
  for (int peer : {1, 2, 3}) {
    EXPECT_EQ(only_reply(sync.on_request(peer, kQueryState), peer), kStateNotStarted);
    EXPECT_EQ(only_reply(sync.on_request(peer, 10), peer), 10);
  }
  for (int peer : {1, 2}) {
    auto r = sync.on_request(peer, kStart);
    EXPECT_EQ(only_reply(r, peer), kPleaseWait);
    EXPECT_FALSE(r.start);
  }
  EXPECT_EQ(sync.state(), kStateNotStarted);
  auto last = sync.on_request(3, kLastClientStart);
  EXPECT_TRUE(last.start);
  EXPECT_EQ(sync.state(), kStateRunning);
  std::vector<int> released;
  for (const auto& reply : last.replies) {
    EXPECT_EQ(reply.value, kStart);
    released.push_back(reply.peer);
  }
  EXPECT_EQ(released, (std::vector<int>{1, 2, 3}));  // exactly one 'R' each (no defect #9)
  EXPECT_EQ(sync.parked_peers(), 0u);
}

TEST(ReceiverSync, MultiClientAtMostSevenParked) {
  auto sync = make(10, /*multi=*/true);
  for (int peer = 1; peer <= 7; ++peer)
    EXPECT_EQ(only_reply(sync.on_request(peer, kStart), peer), kPleaseWait) << peer;
  auto eighth = sync.on_request(8, kStart);
  EXPECT_EQ(only_reply(eighth, 8), kEarlyExit);
  EXPECT_FALSE(eighth.start);
  EXPECT_EQ(eighth.log_error.size(), 1u);
  EXPECT_EQ(sync.parked_peers(), 7u);
  auto last = sync.on_request(9, kLastClientStart);
  EXPECT_TRUE(last.start);
  ASSERT_EQ(last.replies.size(), 8u);
  for (size_t i = 0; i < last.replies.size(); ++i) {
    EXPECT_EQ(last.replies[i].value, kStart);
    EXPECT_EQ(last.replies[i].peer, i < 7 ? static_cast<int>(i) + 1 : 9);
  }
}

TEST(ReceiverSync, MultiClientClosedPeerIsNotReleased) {
  auto sync = make(10, /*multi=*/true);
  sync.on_request(1, kStart);
  sync.on_request(2, kStart);
  sync.on_peer_closed(1);
  auto last = sync.on_request(3, kLastClientStart);
  ASSERT_EQ(last.replies.size(), 2u);
  EXPECT_EQ(last.replies[0].peer, 2);
  EXPECT_EQ(last.replies[1].peer, 3);
}

TEST(ReceiverSync, OnlyASenderOfTheRunningTestLeavingCounts) {
  auto sync = make(10, /*multi=*/false);
  sync.on_request(1, kQueryState);
  EXPECT_FALSE(sync.on_peer_closed(1).left_running_test) << "closed before any test: nothing lost";
  sync.on_request(2, kStart);
  sync.on_request(3, kQueryState);  // a second sender's busy check
  EXPECT_FALSE(sync.on_peer_closed(3).left_running_test)
      << "a busy check closing must not end the test";
  EXPECT_TRUE(sync.on_peer_closed(2).left_running_test) << "the running test's sender went away";
  sync.on_request(4, kStart);
  sync.test_finished();
  EXPECT_FALSE(sync.on_peer_closed(4).left_running_test)
      << "closing after the test is the normal end";
}

TEST(ReceiverSync, MultiClientParticipantsAreEverySender) {
  auto sync = make(10, /*multi=*/true);
  sync.on_request(1, kStart);
  sync.on_request(2, kLastClientStart);
  const auto first = sync.on_peer_closed(1);
  EXPECT_TRUE(first.left_running_test);
  EXPECT_FALSE(first.no_sender_left);
  const auto last = sync.on_peer_closed(2);
  EXPECT_TRUE(last.left_running_test);
  EXPECT_TRUE(last.no_sender_left);
}

// A parked sender that then says it is the last one ('R', 'W', then 'L') is one sender of the
// test, not two: it gets one 'R', and when it leaves, nobody is left.
TEST(ReceiverSync, MultiClientParkedSenderThatIsAlsoTheLastIsOneSender) {
  auto sync = make(10, /*multi=*/true);
  EXPECT_EQ(only_reply(sync.on_request(1, kStart), 1), kPleaseWait);
  auto last = sync.on_request(1, kLastClientStart);
  EXPECT_TRUE(last.start);
  EXPECT_EQ(only_reply(last, 1), kStart);
  EXPECT_EQ(sync.participants(), std::vector<int>{1});
  const auto left = sync.on_peer_closed(1);
  EXPECT_TRUE(left.left_running_test);
  EXPECT_TRUE(left.no_sender_left);
  EXPECT_FALSE(sync.is_participant(1));
}

TEST(ReceiverSync, MultiClientLateSendersAreRejected) {
  auto sync = make(10, /*multi=*/true);
  sync.on_request(1, kLastClientStart);
  auto late = sync.on_request(2, kStart);
  EXPECT_EQ(only_reply(late, 2), kEarlyExit);
  EXPECT_EQ(late.log_error.size(), 1u);
  auto second_last = sync.on_request(3, kLastClientStart);
  EXPECT_EQ(only_reply(second_last, 3), kEarlyExit);
  EXPECT_FALSE(second_last.start);
}

TEST(ReceiverSync, LastClientWithoutMultiClientModeIsRefused) {
  auto sync = make(10);
  auto outcome = sync.on_request(1, kLastClientStart);
  const int32_t reply = only_reply(outcome, 1);
  EXPECT_NE(reply, kStart);       // NTTTCP's sender then says "receiver is not ready"
  EXPECT_NE(reply, kPleaseWait);  // and must not block waiting for a second reply
  EXPECT_FALSE(outcome.start);
  ASSERT_EQ(outcome.log_error.size(), 1u);
  EXPECT_NE(outcome.log_error[0].find("'-M'"), std::string::npos);
  EXPECT_EQ(sync.state(), kStateNotStarted);
}

TEST(ReceiverSync, NativeHello) {
  auto sync = make(10);
  auto hello = sync.on_request(1, kHello);
  EXPECT_EQ(only_reply(hello, 1), kHelloAck);
  EXPECT_TRUE(hello.native_hello);
  EXPECT_FALSE(hello.negotiated_cycle_s);
  EXPECT_EQ(sync.state(), kStateNotStarted);
  EXPECT_EQ(sync.negotiated_cycle_s(), 10u);
  EXPECT_FALSE(sync.on_request(1, 10).native_hello);
}

TEST(ReceiverSync, FinishedThenAnotherTest) {  // receiver -H: runs one test after another
  auto sync = make(10);
  sync.on_request(1, kStart);
  sync.test_finished();
  sync.on_peer_closed(1);  // its sender has left
  EXPECT_EQ(only_reply(sync.on_request(2, kQueryState), 2), kStateFinished);
  auto again = sync.on_request(2, kStart);
  EXPECT_TRUE(again.start);
  EXPECT_EQ(sync.state(), kStateRunning);
}

// A test belongs to the sender that started it: a second sender (a stranger, or a real sender
// that raced past its busy check) is refused, and the test goes on as its sender's alone.
TEST(ReceiverSync, NobodyJoinsARunningTest) {
  auto sync = make(10);
  EXPECT_TRUE(sync.on_request(1, kStart).start);
  auto second = sync.on_request(2, kStart);
  EXPECT_EQ(only_reply(second, 2), kEarlyExit);
  EXPECT_FALSE(second.start);
  ASSERT_EQ(second.log_error.size(), 1u);
  EXPECT_EQ(second.log_error[0], "start refused: a test is running");
  EXPECT_EQ(sync.participants(), std::vector<int>{1});
  // So its 'E' and its leaving are a stranger's: they change nothing.
  EXPECT_FALSE(sync.on_request(2, kEarlyExit).stop_early);
  EXPECT_FALSE(sync.on_peer_closed(2).left_running_test);
  EXPECT_EQ(sync.state(), kStateRunning);
  EXPECT_EQ(only_reply(sync.on_request(1, kStart), 1), kStart);  // a repeat is no new test
}

// Until every sender of the finished test has left (its result handed in and ours taken), the
// receiver is busy: nobody can start a test that would take that result away.
TEST(ReceiverSync, NoTestStartsWhileTheLastOnesSendersAreStillThere) {
  auto sync = make(10);
  sync.on_request(1, kStart);
  sync.test_finished();
  EXPECT_TRUE(sync.settling());
  auto asked = sync.on_request(2, kQueryState);
  EXPECT_EQ(only_reply(asked, 2), kStateRunning) << "busy";
  EXPECT_EQ(asked.log_info, std::vector<std::string>{"told a sender this receiver is busy: the "
                                                     "last test's senders have not all left yet"});
  auto refused = sync.on_request(2, kStart);
  EXPECT_EQ(only_reply(refused, 2), kEarlyExit);
  EXPECT_FALSE(refused.start);
  EXPECT_TRUE(sync.on_request(1, kEarlyExit).result_may_follow);  // the sender's still may
  // Said, and said to pass by itself (a native sender's hello carries it: it asks again).
  ASSERT_TRUE(sync.busy());
  EXPECT_EQ(sync.busy()->why, "the last test's senders have not all left yet");
  EXPECT_TRUE(sync.busy()->passing);
  EXPECT_TRUE(sync.on_request(2, kQueryState).log_info.empty()) << "said once, not at every ask";
  sync.on_peer_closed(1);
  EXPECT_FALSE(sync.busy());
  EXPECT_FALSE(sync.settling());
  EXPECT_EQ(only_reply(sync.on_request(2, kQueryState), 2), kStateFinished);
  EXPECT_TRUE(sync.on_request(2, kStart).start);
}

// The listener's budget of tests per period: while it is spent, a busy check says busy and a
// start is refused; a running test is not touched.
TEST(ReceiverSync, NoTestStartsWhileStartsAreNotAllowed) {
  auto sync = make(10);
  sync.set_starts_allowed(false);
  EXPECT_EQ(only_reply(sync.on_request(1, kQueryState), 1), kStateRunning);
  ASSERT_TRUE(sync.busy());
  EXPECT_FALSE(sync.busy()->passing);  // a sender is told at once
  auto refused = sync.on_request(1, kStart);
  EXPECT_EQ(only_reply(refused, 1), kEarlyExit);
  ASSERT_EQ(refused.log_error.size(), 1u);
  EXPECT_NE(refused.log_error[0].find("too many tests"), std::string::npos);
  sync.set_starts_allowed(true);
  EXPECT_TRUE(sync.on_request(1, kStart).start);
  sync.set_starts_allowed(false);
  EXPECT_EQ(only_reply(sync.on_request(1, kStart), 1), kStart);
  EXPECT_TRUE(sync.on_request(1, kEarlyExit).stop_early);
}

TEST(ReceiverSync, MultiClientNoStartWhileTheLastTestSettles) {
  auto sync = make(10, true);
  sync.on_request(1, kLastClientStart);
  sync.test_finished();
  EXPECT_EQ(only_reply(sync.on_request(2, kStart), 2), kPleaseWait);  // parking is no start
  EXPECT_EQ(only_reply(sync.on_request(3, kLastClientStart), 3), kEarlyExit);
  sync.on_peer_closed(1);
  auto go = sync.on_request(3, kLastClientStart);
  EXPECT_TRUE(go.start);
  EXPECT_EQ(sync.participants(), (std::vector<int>{2, 3}));
}

// Hostile peers: a connection that is not a sender of the test can neither stop it nor hand in
// a result for it, and cannot stretch it beyond what a command line could ask for.
TEST(ReceiverSync, EarlyExitFromAnOutsiderNeitherStopsNorOpensAResult) {
  auto sync = make(10);
  sync.on_request(1, kStart);
  auto outsider = sync.on_request(2, kEarlyExit);
  EXPECT_EQ(only_reply(outsider, 2), kStateRunning);
  EXPECT_FALSE(outsider.stop_early);
  EXPECT_FALSE(outsider.result_may_follow);
  EXPECT_EQ(sync.state(), kStateRunning);
  auto sender = sync.on_request(1, kEarlyExit);
  EXPECT_TRUE(sender.stop_early);
  EXPECT_TRUE(sender.result_may_follow);
}

TEST(ReceiverSync, TheSenderMayHandInItsResultAfterTheReceiverFinished) {
  auto sync = make(10);
  sync.on_request(1, kStart);
  sync.test_finished();  // the receiver's window ended first
  auto e = sync.on_request(1, kEarlyExit);
  EXPECT_EQ(only_reply(e, 1), kStateFinished);
  EXPECT_FALSE(e.stop_early);
  EXPECT_TRUE(e.result_may_follow);
  EXPECT_FALSE(sync.on_request(2, kEarlyExit).result_may_follow);
}

// A sender's proposal never makes a cycle longer than the receiver allows (--max-cycle, by
// default an hour or the receiver's own cycle), nor, with no limit, than the command line could.
TEST(ReceiverSync, ACycleProposalIsCappedByTheReceiver) {
  auto sync = make(10);
  auto proposal = sync.on_request(1, 94'608'000);  // three years
  EXPECT_EQ(only_reply(proposal, 1), 3600);
  EXPECT_EQ(sync.negotiated_cycle_s(), 3600u);
  ASSERT_EQ(proposal.log_error.size(), 1u);
  EXPECT_NE(proposal.log_error[0].find("--max-cycle"), std::string::npos);
  EXPECT_EQ(only_reply(sync.on_request(1, 300), 1), 300);  // below the cap: as NTTTCP does

  auto unlimited = make(10, false, 0);
  EXPECT_EQ(only_reply(unlimited.on_request(1, 2'000'000'000), 1),
            static_cast<int32_t>(kMaxCycleSeconds));
}

TEST(ReceiverSync, ANativeSendersProposalIsTheCycle) {
  // NTTTCP's rule takes the larger of the receiver's -t and the proposal; an xttcp sender (it
  // said HELLO) gets the cycle it asked for: its test runs, not the receiver's -t 60.
  auto sync = make(60);
  sync.on_request(1, kHello);
  EXPECT_EQ(only_reply(sync.on_request(1, 3), 1), 3);
  EXPECT_EQ(sync.negotiated_cycle_s(), 3u);
  // Within --max-cycle still.
  auto capped = make(60, false, 100);
  capped.on_request(1, kHello);
  EXPECT_EQ(only_reply(capped.on_request(1, 500), 1), 100);
  // A legacy sender on the same receiver keeps NTTTCP's rule.
  EXPECT_EQ(only_reply(sync.on_request(2, 3), 2), 60);
  // -M: every sender follows the receiver's -t.
  auto multi = make(60, true);
  multi.on_request(1, kHello);
  EXPECT_EQ(only_reply(multi.on_request(1, 3), 1), 60);
}

}  // namespace
}  // namespace xttcp
