// The receiver's rules for NTttcp for Windows' token ports (token_port_rules.hh): who may give a
// thread's token, and every deadline, without sockets.
#include "engine/control/token_port_rules.hh"

#include <gtest/gtest.h>

#include "engine/control/windows_token.hh"

namespace xttcp {
namespace {

using RulesClock = TokenPortRules::Clock;
using Why = TokenPortRules::Why;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr uint16_t kDataPort = 5001;  // thread 0's; thread i's is kDataPort + i

// Two threads judged from `evidence` as a TCP receiver (or UDP, or with -sp) judges them.
struct Rules {
  explicit Rules(bool tcp = true, bool sp = false, std::size_t threads = 2)
      : rules(threads, [this, tcp, sp](std::size_t port, const std::string& host,
                                       RulesClock::time_point accepted) {
          return token_standing(evidence, static_cast<uint16_t>(kDataPort + port), host, accepted,
                                tcp, sp);
        }) {}
  TokenPortRules::Id accept(std::size_t port, const std::string& host, RulesClock::time_point at) {
    std::vector<TokenPortRules::Closed> crowded;
    const TokenPortRules::Id id = rules.accepted(port, host, at, crowded);
    EXPECT_TRUE(crowded.empty());
    return id;
  }
  SenderEvidence evidence;
  TokenPortRules rules;
};

const RulesClock::time_point t0 = RulesClock::time_point() + seconds(1000);

TEST(TokenPortRules, ASilentConnectionIsClosedAfterTheTokenWaitAndThePortListensOn) {
  Rules r;
  const auto id = r.accept(0, "10.0.0.9", t0);
  EXPECT_TRUE(r.rules.decide(t0 + windows_token::token_wait - milliseconds(1)).closed.empty());
  const TokenPortRules::Step step = r.rules.decide(t0 + windows_token::token_wait);
  ASSERT_EQ(step.closed.size(), 1u);
  EXPECT_EQ(step.closed[0].id, id);
  EXPECT_EQ(step.closed[0].why, Why::silent);
  EXPECT_TRUE(r.rules.waiting(0));
  EXPECT_EQ(r.rules.candidates(), 0u);
}

// TCP: a stranger's token, from a host with no data connection, never counts; the sender's
// (its data connection came first) does, and the stranger is then closed.
TEST(TokenPortRules, TcpCountsOnlyTheHostOfTheThreadsDataConnection) {
  Rules r;
  const auto stranger = r.accept(0, "10.0.0.9", t0);
  r.rules.token_read(stranger);
  EXPECT_TRUE(r.rules.decide(t0 + seconds(1)).counted.empty());
  r.evidence.data_connection(kDataPort, "10.0.0.1", t0 + seconds(2));
  const auto sender = r.accept(0, "10.0.0.1", t0 + seconds(3));
  r.rules.token_read(sender);
  const TokenPortRules::Step step = r.rules.decide(t0 + seconds(3));
  ASSERT_EQ(step.counted.size(), 1u);
  EXPECT_EQ(step.counted[0].id, sender);
  ASSERT_EQ(step.closed.size(), 1u);
  EXPECT_EQ(step.closed[0].id, stranger);
  EXPECT_EQ(step.closed[0].why, Why::taken);
  EXPECT_FALSE(r.rules.waiting(0));
  EXPECT_EQ(r.rules.counted(), 1u);
}

TEST(TokenPortRules, AnUnprovenTokenIsClosedAtTheTokenWait) {
  Rules r;
  const auto stranger = r.accept(1, "10.0.0.9", t0);
  r.rules.token_read(stranger);
  r.evidence.data_connection(kDataPort, "10.0.0.9", t0);  // thread 0's port, not thread 1's
  const TokenPortRules::Step step = r.rules.decide(t0 + windows_token::token_wait);
  ASSERT_EQ(step.closed.size(), 1u);
  EXPECT_EQ(step.closed[0].why, Why::unproven);
  EXPECT_EQ(r.rules.counted(), 0u);
}

// The worker reports a data connection a moment after the kernel had it: a token connection
// accepted before the report, within the slack, still counts.
TEST(TokenPortRules, TheWorkersReportMayComeAfterTheTokenWithinTheSlack) {
  Rules r;
  const auto sender = r.accept(0, "10.0.0.1", t0);
  r.rules.token_read(sender);
  EXPECT_TRUE(r.rules.decide(t0 + milliseconds(10)).counted.empty());  // not seen yet: waits
  r.evidence.data_connection(kDataPort, "10.0.0.1", t0 + windows_token::data_report_slack);
  EXPECT_EQ(r.rules.decide(t0 + windows_token::data_report_slack).counted.size(), 1u);
}

// A peer on the sender's own host that connected to the token port well before that host's
// data connection is not the sender (it connects its data port first): closed, and the
// sender's own token connection counts.
TEST(TokenPortRules, AConnectionFromTheSendersHostBeforeItsDataConnectionIsNotTheSenders) {
  Rules r;
  const auto early = r.accept(0, "10.0.0.1", t0);
  r.rules.token_read(early);
  const auto seen = t0 + windows_token::data_report_slack + milliseconds(1);
  r.evidence.data_connection(kDataPort, "10.0.0.1", seen);
  const TokenPortRules::Step first = r.rules.decide(seen);
  EXPECT_TRUE(first.counted.empty());
  ASSERT_EQ(first.closed.size(), 1u);
  EXPECT_EQ(first.closed[0].id, early);
  EXPECT_EQ(first.closed[0].why, Why::early);
  const auto sender = r.accept(0, "10.0.0.1", seen + milliseconds(5));
  r.rules.token_read(sender);
  const TokenPortRules::Step second = r.rules.decide(seen + milliseconds(5));
  ASSERT_EQ(second.counted.size(), 1u);
  EXPECT_EQ(second.counted[0].id, sender);
}

// Two that may both be the sender: the one accepted first counts.
TEST(TokenPortRules, TheEarliestEligibleConnectionCounts) {
  Rules r;
  r.evidence.data_connection(kDataPort, "10.0.0.1", t0);
  const auto first = r.accept(0, "10.0.0.1", t0 + seconds(1));
  const auto second = r.accept(0, "10.0.0.1", t0 + seconds(2));
  r.rules.token_read(second);
  r.rules.token_read(first);
  const TokenPortRules::Step step = r.rules.decide(t0 + seconds(2));
  ASSERT_EQ(step.counted.size(), 1u);
  EXPECT_EQ(step.counted[0].id, first);
  ASSERT_EQ(step.closed.size(), 1u);
  EXPECT_EQ(step.closed[0].why, Why::taken);
}

// -sp: the thread's port must have been handed out to the token's host. TCP: a host with a
// data connection it was not handed is not the sender; UDP (no data connection first): the
// hand-out is all there is.
TEST(TokenPortRules, WithSpTheHandOutNamesTheHost) {
  Rules tcp(true, true);
  tcp.evidence.data_connection(kDataPort, "10.0.0.9", t0);
  const auto stranger = tcp.accept(0, "10.0.0.9", t0);
  tcp.rules.token_read(stranger);
  const TokenPortRules::Step refused = tcp.rules.decide(t0);
  ASSERT_EQ(refused.closed.size(), 1u);
  EXPECT_EQ(refused.closed[0].why, Why::not_handed_out);

  Rules udp(false, true);
  const auto early = udp.accept(0, "10.0.0.1", t0);
  udp.rules.token_read(early);
  EXPECT_TRUE(udp.rules.decide(t0).counted.empty());  // the hand-out's record may lag: waits
  udp.evidence.handed_out(kDataPort, "10.0.0.1");
  EXPECT_EQ(udp.rules.decide(t0 + milliseconds(1)).counted.size(), 1u);
  const auto other = udp.accept(1, "10.0.0.9", t0);
  udp.rules.token_read(other);
  const TokenPortRules::Step step = udp.rules.decide(t0 + windows_token::token_wait);
  ASSERT_EQ(step.closed.size(), 1u);
  EXPECT_EQ(step.closed[0].why, Why::unproven);
}

// UDP without -sp: nothing precedes the token, so the first connection with its byte counts
// (docs/hostile-peers.md: inherent; --allow is the defence).
TEST(TokenPortRules, UdpWithoutSpCountsTheFirstToken) {
  Rules r(false, false);
  const auto anyone = r.accept(0, "10.0.0.9", t0);
  r.rules.token_read(anyone);
  EXPECT_EQ(r.rules.decide(t0).counted.size(), 1u);
}

TEST(TokenPortRules, AFullPortClosesItsOldestSilentConnectionFirst) {
  Rules r;
  std::vector<TokenPortRules::Id> ids;
  for (std::size_t i = 0; i < windows_token::candidates_per_port; ++i)
    ids.push_back(r.accept(0, "10.0.0.9", t0 + seconds(i)));
  r.rules.token_read(ids[0]);  // the oldest sent its byte: the next oldest goes
  std::vector<TokenPortRules::Closed> closed;
  r.rules.accepted(0, "10.0.0.1", t0 + seconds(5), closed);
  ASSERT_EQ(closed.size(), 1u);
  EXPECT_EQ(closed[0].id, ids[1]);
  EXPECT_EQ(closed[0].why, Why::crowded);
  EXPECT_EQ(r.rules.candidates(), windows_token::candidates_per_port);
  // Another port is not crowded by this one.
  r.accept(1, "10.0.0.9", t0 + seconds(5));
}

// One thread's token counted and the other's never came: the exchange starts over, and the
// receiver serves a new sender as before.
TEST(TokenPortRules, APartialExchangeStartsOverAfterTheRestOfTokensWait) {
  Rules r;
  r.evidence.data_connection(kDataPort, "10.0.0.1", t0);
  r.rules.token_read(r.accept(0, "10.0.0.1", t0));
  ASSERT_EQ(r.rules.decide(t0).counted.size(), 1u);
  EXPECT_EQ(r.rules.decide(t0 + windows_token::rest_of_tokens_wait - milliseconds(1)).started_over,
            0u);
  const TokenPortRules::Step step = r.rules.decide(t0 + windows_token::rest_of_tokens_wait);
  EXPECT_EQ(step.started_over, 1u);
  EXPECT_TRUE(r.rules.waiting(0));
  EXPECT_EQ(r.rules.counted(), 0u);
  r.evidence.data_connection(kDataPort + 1, "10.0.0.2", t0 + seconds(61));
  r.evidence.data_connection(kDataPort, "10.0.0.2", t0 + seconds(61));
  r.rules.token_read(r.accept(0, "10.0.0.2", t0 + seconds(62)));
  r.rules.token_read(r.accept(1, "10.0.0.2", t0 + seconds(62)));
  EXPECT_EQ(r.rules.decide(t0 + seconds(62)).counted.size(), 2u);
  EXPECT_TRUE(r.rules.all_counted());
}

TEST(TokenPortRules, AFailedSendReopensTheThread) {
  Rules r(false, false);
  r.rules.token_read(r.accept(0, "10.0.0.1", t0));
  const TokenPortRules::Step step = r.rules.decide(t0);
  ASSERT_EQ(step.counted.size(), 1u);
  r.rules.send_failed(step.counted[0]);
  EXPECT_TRUE(r.rules.waiting(0));
  EXPECT_EQ(r.rules.counted(), 0u);
}

TEST(TokenPortRules, AConnectionThatGoesIsForgotten) {
  Rules r;
  const auto id = r.accept(0, "10.0.0.9", t0);
  r.rules.gone(id);
  EXPECT_EQ(r.rules.candidates(), 0u);
  EXPECT_TRUE(r.rules.decide(t0 + windows_token::token_wait).closed.empty());
}

TEST(SenderEvidence, KeepsTheFirstSightingAndTheMostRecentHosts) {
  SenderEvidence evidence;
  evidence.data_connection(kDataPort, "10.0.0.1", t0);
  evidence.data_connection(kDataPort, "10.0.0.1", t0 + seconds(5));
  EXPECT_EQ(evidence.data_connection_seen(kDataPort, "10.0.0.1"), t0);
  EXPECT_FALSE(evidence.data_connection_seen(kDataPort + 1, "10.0.0.1"));
  for (std::size_t i = 0; i < SenderEvidence::hosts_per_port; ++i)
    evidence.data_connection(kDataPort, "10.1.0." + std::to_string(i), t0);
  EXPECT_FALSE(evidence.data_connection_seen(kDataPort, "10.0.0.1"));  // pushed out
  EXPECT_TRUE(evidence.data_connection_seen(kDataPort, "10.1.0.0"));
}

// -sp: a port is in use once a host it went to connected to it, or its token counted.
TEST(SenderEvidence, APortIsClaimedByAHostItWasHandedTo) {
  SenderEvidence evidence;
  evidence.handed_out(kDataPort, "10.0.0.1");
  EXPECT_FALSE(evidence.claimed(kDataPort));
  evidence.data_connection(kDataPort, "10.0.0.9", t0);  // not the host it went to
  EXPECT_FALSE(evidence.claimed(kDataPort));
  evidence.data_connection(kDataPort, "10.0.0.1", t0);
  EXPECT_TRUE(evidence.claimed(kDataPort));

  evidence.handed_out(kDataPort + 1, "10.0.0.1");
  evidence.token_counted(kDataPort + 1, "10.0.0.1");
  EXPECT_TRUE(evidence.claimed(kDataPort + 1));
  evidence.forget_tokens();
  EXPECT_FALSE(evidence.claimed(kDataPort + 1));
}

}  // namespace
}  // namespace xttcp
