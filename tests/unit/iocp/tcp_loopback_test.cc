// TCP through the iocp backend on loopback: every byte the sender counted arrives, with 1 and 8
// outstanding buffers and 1 and 3 connections, on IPv4 and (where Wine has it) IPv6.
#include <gtest/gtest.h>

#include "loopback_pair.hh"

namespace xttcp::iocp_test {
namespace {

void expect_exact(const PairOptions& options, const PairOutcome& out) {
  ASSERT_TRUE(out.ran);
  EXPECT_GT(out.sent, 0u);
  EXPECT_EQ(out.received, out.sent);
  EXPECT_EQ(out.sender.connections, options.connections);
  EXPECT_EQ(out.receiver.connections, options.connections);
  EXPECT_EQ(out.accepts, options.connections);
  EXPECT_EQ(out.data_connections, options.connections);  // the Windows dialect's tokens need them
  EXPECT_EQ(out.sender.errors, 0u) << out.sender.first_error;
  EXPECT_EQ(out.receiver.errors, 0u) << out.receiver.first_error;
  EXPECT_EQ(out.sender.closed_by_peer, 0u);
  ASSERT_EQ(out.sender.connection_stats.size(), options.connections);
  ASSERT_EQ(out.receiver.connection_stats.size(), options.connections);
  uint64_t per_connection = 0;
  for (const ConnectionStats& c : out.receiver.connection_stats) per_connection += c.bytes;
  EXPECT_EQ(per_connection, out.received);
  const std::string host = options.ipv6 ? "[::1]:" : "127.0.0.1:";
  for (const ConnectionStats& c : out.sender.connection_stats) {
    EXPECT_EQ(c.remote.rfind(host, 0), 0u) << c.remote;
    EXPECT_GT(c.bytes, 0u) << c.remote;  // every connection had its turn (paced ones too)
  }
  const uint32_t buffers = options.async_buffers > 0 ? options.async_buffers : 2;
  const std::string note =
      "iocp: " + std::to_string(buffers) + " overlapped sends outstanding per connection";
  ASSERT_FALSE(out.sender.notes.empty());
  EXPECT_EQ(out.sender.notes.front(), note);
}

TEST(IocpTcp, OneConnectionOneBuffer) {
  const PairOptions options{.connections = 1, .async_buffers = 1};
  expect_exact(options, run_pair(options));
}

TEST(IocpTcp, OneConnectionEightBuffers) {
  const PairOptions options{.connections = 1, .async_buffers = 8};
  expect_exact(options, run_pair(options));
}

TEST(IocpTcp, ThreeConnectionsOneBuffer) {
  const PairOptions options{.connections = 3, .async_buffers = 1};
  expect_exact(options, run_pair(options));
}

TEST(IocpTcp, ThreeConnectionsEightBuffers) {
  const PairOptions options{.connections = 3, .async_buffers = 8};
  expect_exact(options, run_pair(options));
}

// Without -a: the default of 2, said in the note; -d on good data finds nothing.
TEST(IocpTcp, DefaultBuffersAndVerifiedData) {
  const PairOptions options{.connections = 2, .verify_data = true};
  const PairOutcome out = run_pair(options);
  expect_exact(options, out);
  ASSERT_FALSE(out.receiver.notes.empty());
  EXPECT_EQ(out.receiver.notes.front(), "iocp: 2 overlapped receives outstanding per connection");
}

// -B: paced sends still add up exactly.
TEST(IocpTcp, PacedSender) {
  const PairOptions options{.connections = 2, .rate_limit_bps = 8'000'000};
  expect_exact(options, run_pair(options));
}

// -wa: receives complete only with a full buffer, or the rest at the sender's close.
TEST(IocpTcp, WaitAllReceives) {
  const PairOptions options{.connections = 2, .async_buffers = 4, .wait_all = true};
  expect_exact(options, run_pair(options));
}

void expect_sane(const LatencyTotals& t, const char* side) {
  EXPECT_LE(t.min, t.max) << side;
  EXPECT_LE(static_cast<double>(t.min), t.average()) << side;
  EXPECT_LE(t.average(), static_cast<double>(t.max)) << side;
  EXPECT_GT(t.max, 0u) << side;  // a pending operation takes at least one QPC tick
}

// -lm: every send and every receive that moved data is timed, from its start to its completion
// (one per completion counted, inline ones included); without -lm nothing is.
TEST(IocpTcp, LatencyTimesEveryOperation) {
  const PairOptions options{.connections = 2, .async_buffers = 4, .latency = true};
  const PairOutcome out = run_pair(options);
  expect_exact(options, out);
  EXPECT_GT(out.sender_latency.calls, 0u);
  EXPECT_EQ(out.sender_latency.calls, out.sent_operations);
  EXPECT_EQ(out.receiver_latency.calls, out.received_operations);
  expect_sane(out.sender_latency, "sender");
  expect_sane(out.receiver_latency, "receiver");

  const PairOptions off{.connections = 1};
  const PairOutcome plain = run_pair(off);
  expect_exact(off, plain);
  EXPECT_GT(plain.sent_operations, 0u);
  EXPECT_EQ(plain.sender_latency.calls, 0u);
  EXPECT_EQ(plain.receiver_latency.calls, 0u);
}

// io.count_reads: each connection's completed receives by size, in iperf 2's 8 bins of -b/8
// (the iperf2 dialect's server with -e); none counted unless asked.
TEST(IocpTcp, ReadSizesCounted) {
  PairOptions options;
  options.connections = 3;
  options.async_buffers = 4;
  options.count_reads = true;
  const PairOutcome out = run_pair(options);
  expect_exact(options, out);
  for (const ConnectionStats& c : out.receiver.connection_stats) {
    ASSERT_TRUE(c.read_sizes.has_value()) << c.remote;
    EXPECT_TRUE(c.stream.has_value());
    uint64_t binned = 0;
    for (uint64_t n : c.read_sizes->bins) binned += n;
    EXPECT_EQ(binned, c.read_sizes->reads);
    EXPECT_GE(c.read_sizes->reads, (c.bytes + options.buffer - 1) / options.buffer);
  }
  options.count_reads = false;
  for (const ConnectionStats& c : run_pair(options).receiver.connection_stats)
    EXPECT_FALSE(c.read_sizes.has_value());
}

TEST(IocpTcp, Ipv6Loopback) {
  if (!ipv6_loopback_works()) GTEST_SKIP() << "::1 cannot be bound here (no IPv6 loopback)";
  const PairOptions options{.ipv6 = true, .connections = 2, .async_buffers = 4};
  expect_exact(options, run_pair(options));
}

}  // namespace
}  // namespace xttcp::iocp_test
