// UDP through the iocp backend on loopback: the native header carries the sender's flow ids and
// sequences, and every datagram sent is either received or counted lost by the receiver.
#include <gtest/gtest.h>

#include <set>

#include "loopback_pair.hh"

namespace xttcp::iocp_test {
namespace {

void expect_accounted(const PairOptions& options, const PairOutcome& out) {
  ASSERT_TRUE(out.ran);
  EXPECT_EQ(out.sender.errors, 0u) << out.sender.first_error;
  EXPECT_EQ(out.receiver.errors, 0u) << out.receiver.first_error;
  EXPECT_EQ(out.sender.connections, options.connections);

  std::set<uint32_t> expected_ids;
  for (uint32_t slot = 0; slot < options.connections; ++slot)
    expected_ids.insert(out.udp_flow_base | slot);
  std::set<uint32_t> sent_ids, received_ids;
  uint64_t sent = 0, received = 0, lost = 0;
  for (const udp::FlowRecord& flow : out.sender_flows) {
    sent_ids.insert(flow.flow_id);
    EXPECT_GT(flow.counters.datagrams, 0u) << "flow " << flow.flow_id;
    EXPECT_EQ(flow.counters.bytes, flow.counters.datagrams * options.buffer);
    sent += flow.counters.datagrams;
  }
  for (const udp::FlowRecord& flow : out.receiver_flows) {
    received_ids.insert(flow.flow_id);
    EXPECT_EQ(flow.slot, 0u);  // the receiver's one port
    EXPECT_EQ(flow.counters.compat_datagrams, 0u);
    // Loopback keeps order: the receiver consumes in arrival order whatever completes inline.
    EXPECT_EQ(flow.counters.reordered, 0u) << "flow " << flow.flow_id;
    EXPECT_EQ(flow.counters.duplicates, 0u) << "flow " << flow.flow_id;
    received += flow.counters.unique;
    lost += flow.counters.lost();
  }
  EXPECT_EQ(sent_ids, expected_ids);
  EXPECT_EQ(received_ids, expected_ids);
  EXPECT_GT(sent, 0u);
  EXPECT_EQ(received + lost, sent);
  EXPECT_EQ(out.sent, sent * options.buffer);
  EXPECT_EQ(out.receiver.connections, options.connections);
}

// Paced (-B), so loopback has no reason to drop: the last datagrams' loss would be invisible to
// sequence gaps.
TEST(IocpUdp, NativeFlowsAreAccountedOneBuffer) {
  const PairOptions options{.protocol = Protocol::udp,
                            .connections = 3,
                            .async_buffers = 1,
                            .rate_limit_bps = 4'000'000,
                            .buffer = 1024};
  expect_accounted(options, run_pair(options));
}

TEST(IocpUdp, NativeFlowsAreAccountedEightBuffers) {
  const PairOptions options{.protocol = Protocol::udp,
                            .connections = 2,
                            .async_buffers = 8,
                            .rate_limit_bps = 4'000'000,
                            .buffer = 1400};
  expect_accounted(options, run_pair(options));
}

// -lm: every datagram sent is timed from WSASend to its completion; every receive that succeeded
// from WSARecvFrom to its completion (one may complete as the run ends, before it is counted).
TEST(IocpUdp, LatencyTimesEveryOperation) {
  const PairOptions options{.protocol = Protocol::udp,
                            .connections = 2,
                            .async_buffers = 4,
                            .rate_limit_bps = 4'000'000,
                            .buffer = 1024,
                            .latency = true};
  const PairOutcome out = run_pair(options);
  expect_accounted(options, out);
  EXPECT_GT(out.sender_latency.calls, 0u);
  EXPECT_EQ(out.sender_latency.calls, out.sent_operations);
  EXPECT_GE(out.receiver_latency.calls, out.received_operations);
  EXPECT_GT(out.receiver_latency.calls, 0u);
  for (const LatencyTotals* t : {&out.sender_latency, &out.receiver_latency}) {
    EXPECT_LE(static_cast<double>(t->min), t->average());
    EXPECT_LE(t->average(), static_cast<double>(t->max));
    EXPECT_GT(t->max, 0u);
  }
}

}  // namespace
}  // namespace xttcp::iocp_test
