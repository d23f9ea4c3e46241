// Two xttcp peers agree on the workload before it runs (engine/run/workload_agreement.hh).
#include "engine/run/workload_agreement.hh"

#include <gtest/gtest.h>

#include "engine/run/hello.hh"
#include "specs.hh"

namespace xttcp {
namespace {

TestSpec receiver_spec(uint32_t ports) {
  TestSpec spec = test::sender_spec(ports, 1, 1);
  spec.role = Role::receiver;
  return spec;
}

TEST(WorkloadAgreement, SameWorkloadAgrees) {
  EXPECT_EQ(workload_mismatch(test::sender_spec(4, 1, 1), receiver_spec(4)), std::nullopt);
  // Fewer ports than the receiver listens on is fine: each sender uses what it asks for.
  EXPECT_EQ(workload_mismatch(test::sender_spec(2, 1, 1), receiver_spec(16)), std::nullopt);
}

TEST(WorkloadAgreement, OnePortAtBothEndsOrNeither) {
  TestSpec sender = test::sender_spec(8, 2, 1);
  TestSpec receiver = receiver_spec(2);
  sender.layout.one_port = true;
  auto why = workload_mismatch(sender, receiver);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("the sender runs on one port (--one-port) and the receiver does not"),
            std::string::npos)
      << *why;
  receiver.layout.one_port = true;
  // On one port the receiver serves any number of connections there: its -P is its threads.
  EXPECT_EQ(workload_mismatch(sender, receiver), std::nullopt);
}

TEST(WorkloadAgreement, AReceiversCookieTravelsInItsHello) {
  const sync_auth::Cookie cookie{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 255};
  const std::string hello = hello_json(receiver_spec(1), std::nullopt, std::nullopt, cookie);
  auto read = stream_cookie_in_hello(hello);
  ASSERT_TRUE(read && *read);
  EXPECT_EQ(**read, cookie);
  auto none = stream_cookie_in_hello(hello_json(receiver_spec(1)));
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
  for (const char* bad : {R"({"stream_cookie":"0102"})", R"({"stream_cookie":7})",
                          R"({"stream_cookie":"zz02030405060708090a0b0c0d0e0fff"})"})
    EXPECT_FALSE(stream_cookie_in_hello(bad)) << bad;
}

TEST(WorkloadAgreement, ProtocolMismatchNamesBothSettings) {
  TestSpec sender = test::sender_spec(1, 1, 1);
  sender.workload.protocol = Protocol::udp;
  auto why = workload_mismatch(sender, receiver_spec(1));
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("UDP (-u)"), std::string::npos) << *why;
  EXPECT_NE(why->find("TCP (no -u)"), std::string::npos) << *why;
}

TEST(WorkloadAgreement, RrOnOneEndOnly) {
  TestSpec sender = test::sender_spec(1, 1, 1);
  sender.rr.on = true;
  auto why = workload_mismatch(sender, receiver_spec(1));
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("the sender runs request/response (--rr)"), std::string::npos) << *why;
  TestSpec receiver = receiver_spec(1);
  receiver.rr.on = true;
  why = workload_mismatch(test::sender_spec(1, 1, 1), receiver);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("the receiver runs request/response (--rr)"), std::string::npos) << *why;
}

TEST(WorkloadAgreement, RrSizesMustMatch) {
  TestSpec sender = test::sender_spec(1, 1, 1);
  TestSpec receiver = receiver_spec(1);
  sender.rr.on = receiver.rr.on = true;
  sender.workload.send_buffer = 64;
  receiver.workload.send_buffer = 128;
  auto why = workload_mismatch(sender, receiver);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("64 bytes and the receiver's 128"), std::string::npos) << *why;
  receiver.workload.send_buffer = 64;
  EXPECT_EQ(workload_mismatch(sender, receiver), std::nullopt);
}

TEST(WorkloadAgreement, PortsBeyondTheReceiversAreRefused) {
  auto why = workload_mismatch(test::sender_spec(32, 1, 1), receiver_spec(16));
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("give the receiver -P 32 or more"), std::string::npos) << *why;
}

TEST(WorkloadAgreement, HelloCarriesTheSpec) {
  TestSpec sender = test::sender_spec(3, 1, 1);
  sender.workload.duration_s = 7;
  sender.workload.warmup_s = 2;
  auto read = spec_in_hello(hello_json(sender, std::nullopt));
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read->layout.ports, 3u);
  EXPECT_EQ(phases_of(*read), (TestPhases{2, 7, 0}));
  EXPECT_FALSE(spec_in_hello("{\"type\":\"hello\"}"));
  EXPECT_FALSE(spec_in_hello("[1,2]"));
  EXPECT_FALSE(spec_in_hello("not json"));
}

TEST(WorkloadAgreement, RefusalIsReadPrintable) {
  EXPECT_EQ(refusal_in_hello(hello_json(test::sender_spec(1, 1, 1), std::nullopt)), std::nullopt);
  EXPECT_EQ(refusal_in_hello("{\"type\":\"hello\",\"refused\":\"no\\nway\"}"),
            std::optional<std::string>("no way"));
  EXPECT_EQ(refusal_in_hello("garbage"), std::nullopt);
  auto long_one = refusal_in_hello("{\"refused\":\"" + std::string(5000, 'x') + "\"}");
  ASSERT_TRUE(long_one);
  EXPECT_EQ(long_one->size(), 400u);
}

TEST(WorkloadAgreement, BusyIsReadPrintableWithWhetherItPasses) {
  EXPECT_FALSE(busy_in_hello(hello_json(test::sender_spec(1, 1, 1), std::nullopt)));
  auto passing = busy_in_hello(
      "{\"type\":\"hello\",\"busy\":{\"why\":\"senders\\nleaving\",\"passing\":true}}");
  ASSERT_TRUE(passing);
  EXPECT_EQ(passing->why, "senders leaving");
  EXPECT_TRUE(passing->passing);
  auto bare = busy_in_hello("{\"busy\":{\"passing\":\"yes\"}}");  // wrong types: not passing
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->why, "(no reason given)");
  EXPECT_FALSE(bare->passing);
  EXPECT_FALSE(busy_in_hello("{\"busy\":true}"));
  EXPECT_FALSE(busy_in_hello("garbage"));
}

TEST(WorkloadAgreement, CycleDisagreementSaysWhoseSettingWins) {
  TestSpec receiver = receiver_spec(1);
  EXPECT_EQ(cycle_disagreement(3, 3, receiver), std::nullopt);
  auto capped = cycle_disagreement(7200, 3600, receiver);
  ASSERT_TRUE(capped);
  EXPECT_NE(capped->find("--max-cycle wins"), std::string::npos) << *capped;
  receiver.control.multi_clients = true;
  auto multi = cycle_disagreement(3, 60, receiver);
  ASSERT_TRUE(multi);
  EXPECT_NE(multi->find("with -M the receiver's -t wins"), std::string::npos) << *multi;
  EXPECT_NE(multi->find("give this sender -t 60, or the receiver -t 3"), std::string::npos);
}

TEST(WorkloadAgreement, PhasesRoundTrip) {
  TestSpec spec = receiver_spec(1);
  const TestPhases asked{1, 3, 2};
  EXPECT_EQ(phases_of(with_phases(spec, asked)), asked);
  EXPECT_EQ(describe_phases(asked), "-W 1 -t 3 -C 2");
  EXPECT_EQ(describe_phases({0, 60, 0}), "-t 60");
}

}  // namespace
}  // namespace xttcp
