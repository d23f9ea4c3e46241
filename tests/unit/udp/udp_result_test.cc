// The UDP figures of a result: window rate, and the whole run's loss, exact from the senders'
// counts or inferred from sequence gaps; the flow registry's sums and deltas.
#include <gtest/gtest.h>

#include "engine/udp/flow_registry.hh"
#include "engine/udp/udp_result.hh"

namespace xttcp::udp {
namespace {

FlowRecord flow(uint32_t slot, uint32_t id, uint64_t datagrams, uint64_t unique, uint64_t expected,
                uint64_t reordered = 0, uint64_t duplicates = 0, uint64_t jitter_ns = 0) {
  FlowRecord f;
  f.slot = slot;
  f.flow_id = id;
  f.counters.datagrams = datagrams;
  f.counters.bytes = datagrams * 1000;
  f.counters.unique = unique;
  f.counters.expected = expected;
  f.counters.reordered = reordered;
  f.counters.duplicates = duplicates;
  f.counters.jitter_ns = jitter_ns;
  return f;
}

TEST(UdpResult, ExactLossFromTheSendersCounts) {
  UdpResult udp;
  // Flow 7 lost 10 at the end (invisible to sequence gaps); flow 8 lost 5 in the middle.
  const std::vector<FlowRecord> run = {flow(0, 7, 990, 990, 990),
                                       flow(0, 8, 996, 995, 1000, 3, 1, 2'000'000)};
  add_run_figures(udp, Role::receiver, run, {{7, true, 1000}, {8, true, 1000}});
  EXPECT_EQ(udp.loss_source, "sender count");
  EXPECT_EQ(udp.payload, "native");
  EXPECT_EQ(udp.sent, 2000u);
  EXPECT_EQ(udp.received, 1985u);
  EXPECT_EQ(udp.lost, 15u);
  EXPECT_DOUBLE_EQ(udp.loss_percent, 0.75);
  EXPECT_EQ(udp.reordered, 3u);
  EXPECT_EQ(udp.duplicates, 1u);
  EXPECT_DOUBLE_EQ(udp.jitter_ms, 2.0);
  ASSERT_EQ(udp.flows.size(), 2u);
  EXPECT_EQ(udp.flows[0].lost, 10u);
  EXPECT_EQ(udp.flows[1].lost, 5u);
}

TEST(UdpResult, AFlowThatDeliveredNothingIsLostWhole) {
  UdpResult udp;
  add_run_figures(udp, Role::receiver, {flow(0, 1, 100, 100, 100)},
                  {{1, true, 100}, {2, true, 50}});
  EXPECT_EQ(udp.sent, 150u);
  EXPECT_EQ(udp.lost, 50u);
}

TEST(UdpResult, WithoutSenderCountsLossComesFromSequenceGaps) {
  UdpResult udp;
  add_run_figures(udp, Role::receiver, {flow(0, 1, 90, 90, 100)}, {});
  EXPECT_EQ(udp.loss_source, "sequence gaps");
  EXPECT_EQ(udp.lost, 10u);
  EXPECT_DOUBLE_EQ(udp.loss_percent, 10.0);
}

TEST(UdpResult, CompatDatagramsAreCountedNotSequenced) {
  UdpResult udp;
  FlowRecord compat = flow(3, compat_flow, 500, 0, 0);
  add_run_figures(udp, Role::receiver, {compat}, {});
  EXPECT_EQ(udp.payload, "compat");
  EXPECT_EQ(udp.loss_source, "none");
  EXPECT_EQ(udp.received, 500u);
  EXPECT_EQ(udp.lost, 0u);
  add_run_figures(udp, Role::receiver, {compat, flow(3, 9, 10, 10, 10)}, {});
  EXPECT_EQ(udp.payload, "mixed");
}

TEST(UdpResult, SenderListsWhatEachFlowSent) {
  UdpResult udp;
  add_run_figures(udp, Role::sender, {flow(0, 4, 10, 0, 0), flow(1, 5, 20, 0, 0)}, {});
  EXPECT_EQ(udp.sent, 30u);
  ASSERT_EQ(udp.flows.size(), 2u);
  EXPECT_EQ(udp.flows[1].flow, 5u);
  EXPECT_EQ(udp.flows[1].sent, 20u);
}

TEST(UdpResult, WindowRateAndMeanSize) {
  TestSpec spec;
  spec.role = Role::receiver;
  const UdpResult udp = window_figures(spec, {flow(0, 1, 100, 100, 100)},
                                       {flow(0, 1, 300, 300, 300), flow(1, 2, 100, 100, 100)}, 2.0);
  EXPECT_EQ(udp.window_datagrams, 300u);  // 200 more on flow 1, 100 on the new flow 2
  EXPECT_DOUBLE_EQ(udp.window_pps, 150.0);
  EXPECT_EQ(udp.datagram_size, 1000u);
}

TEST(UdpResult, SentCountsComeFromASendersResult) {
  Result sender;
  sender.role = Role::sender;
  sender.udp = UdpResult{};
  sender.udp->flows = {UdpFlowResult{.flow = 7, .sent = 1000, .received = 3},
                       UdpFlowResult{.flow = 8, .sent = 5}};
  const auto flows = sent_flows_in(sender);
  ASSERT_EQ(flows.size(), 2u);
  EXPECT_EQ(flows[0].flow, 7u);
  EXPECT_EQ(flows[0].received, 0u);  // only what was sent
  EXPECT_EQ(flows[1].sent, 5u);
  Result receiver = sender;
  receiver.role = Role::receiver;  // a receiver's counts never stand for a sender's
  EXPECT_TRUE(sent_flows_in(receiver).empty());
  Result tcp;
  tcp.role = Role::sender;
  EXPECT_TRUE(sent_flows_in(tcp).empty());
}

TEST(UdpFlowRegistry, SnapshotsSumsAndDeltas) {
  UdpFlowRegistry registry;
  UdpFlowCounters& a = registry.add(0, 1);
  a.datagrams.store(5);
  const auto before = registry.snapshot();
  UdpFlowCounters& b = registry.add(1, 2);
  a.datagrams.store(8);
  b.datagrams.store(4);
  b.jitter_ns.store(900);
  const auto after = registry.snapshot();
  ASSERT_EQ(after.size(), 2u);
  const UdpFlowSnapshot d = sum(delta(after, before));
  EXPECT_EQ(d.datagrams, 7u);  // 3 more on flow 1, 4 on the new flow 2
  EXPECT_EQ(d.jitter_ns, 900u);
}

}  // namespace
}  // namespace xttcp::udp
