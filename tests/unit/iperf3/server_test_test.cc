// What one iperf3 test is to the engine: the spec from the client's parameters, the refusals,
// and the results message from a measured window (engine/iperf3/server_test.hh).
#include "engine/iperf3/server_test.hh"
#include "engine/iperf3/test_results.hh"

#include <gtest/gtest.h>

#include "engine/iperf3/errors.hh"

namespace xttcp::iperf3 {
namespace {

TEST(TestSpecFromParameters, WhatTheClientAskedIsWhatTheEngineRuns) {
  TestSpec server;
  server.layout.base_port = 5201;
  Parameters p;
  p.parallel = 4;
  p.time_s = 5;
  p.omit_s = 2;
  p.length = 1024;
  p.window = 1 << 20;
  p.nodelay = true;
  p.congestion = "cubic";
  p.rate_bps = 1000000;
  TestSpec t = test_spec(server, p, p.reverse);
  EXPECT_EQ(t.role, Role::receiver);
  EXPECT_TRUE(t.layout.one_port);
  EXPECT_EQ(t.layout.ports, 4u);
  EXPECT_EQ(t.sender_connections(), 4u);
  EXPECT_EQ(t.workload.warmup_s, 2u);
  EXPECT_EQ(t.workload.duration_s, 5u + end_grace_s);  // the client ends it; this is the grace
  EXPECT_EQ(t.workload.send_buffer, 1024u);
  EXPECT_EQ(t.io.socket_recv_buffer, 1 << 20);
  EXPECT_TRUE(t.io.no_delay);
  EXPECT_EQ(t.io.congestion, "cubic");
  EXPECT_EQ(t.workload.rate_limit_bps, 0u);  // the client sends: it paces itself
  p.reverse = true;
  t = test_spec(server, p, p.reverse);
  EXPECT_EQ(t.role, Role::sender);
  EXPECT_EQ(t.workload.rate_limit_bps, 4000000u);  // -b is per stream
  p.rate_bps = UINT64_MAX / 2;                     // an absurd rate is no rate, never a wrapped one
  EXPECT_EQ(test_spec(server, p, p.reverse).workload.rate_limit_bps, 0u);
  p.time_s = 0;  // -n or -k: the client ends it; 3.12's longest test bounds this end
  EXPECT_EQ(test_spec(server, p, p.reverse).workload.duration_s, max_time_s + end_grace_s);
}

TEST(TestSpecFromParameters, UdpWithItsHead) {
  TestSpec server;
  Parameters p;
  p.protocol = Protocol::udp;
  p.length = 1400;
  p.rate_bps = 1048576;
  p.parallel = 2;
  p.udp_counters_64bit = true;
  TestSpec t = test_spec(server, p, p.reverse);
  EXPECT_EQ(t.workload.protocol, xttcp::Protocol::udp);
  EXPECT_EQ(t.workload.udp_payload, UdpPayload::iperf3);
  EXPECT_TRUE(t.iperf3.udp_counters_64bit);
  EXPECT_EQ(t.workload.send_buffer, 1400u);  // every datagram exactly "len"
  EXPECT_EQ(t.role, Role::receiver);
  p.reverse = true;
  t = test_spec(server, p, p.reverse);
  EXPECT_EQ(t.role, Role::sender);
  EXPECT_EQ(t.workload.rate_limit_bps, 2 * 1048576u);  // -b per stream
}

TEST(OurResults, UdpFiguresAfterTheOmitPeriod) {
  MeasuredWindow w;
  w.seconds = 1;
  w.begin = {CounterSnapshot{0}};
  w.end = {CounterSnapshot{14000}};
  udp::UdpFlowSnapshot before, after;
  before.datagrams = before.unique = before.expected = 5;  // during -O
  after.datagrams = after.unique = 15;
  after.expected = 17;
  after.reordered = 1;
  after.jitter_ns = 250'000;
  w.udp_begin = {{0, 0, before, 0}};
  w.udp_end = {{0, 0, after, 0}};
  const Results received = our_results(false, w, {});
  ASSERT_EQ(received.streams.size(), 1u);
  EXPECT_EQ(received.streams[0].packets, 12);  // the highest sequence, less the omitted
  EXPECT_EQ(received.streams[0].errors, 2);
  EXPECT_DOUBLE_EQ(received.streams[0].jitter_s, 0.00025);
  EXPECT_EQ(received.sender_has_retransmits, -1);
  EXPECT_EQ(out_of_order(w), std::vector<int64_t>{1});
  const Results sent = our_results(true, w, {});
  EXPECT_EQ(sent.streams[0].packets, 10);     // datagrams sent after the omit period
  EXPECT_EQ(sent.sender_has_retransmits, 0);  // a UDP sender knows none
  EXPECT_EQ(sent.streams[0].retransmits, -1);
}

TEST(Refusals, WhatThisServerDoesNotRunYet) {
  Parameters p;
  EXPECT_FALSE(refusal(p));
  p.protocol = Protocol::udp;  // without "len" 3.12's server takes 131072: no datagram's size
  EXPECT_EQ(refusal(p)->code, error_udp_block_size);
  EXPECT_EQ(refusal(p)->why, "a UDP datagram of 0 bytes (iperf3's are 16 to 65507)");
  p.length = 1460;
  EXPECT_FALSE(refusal(p));
  p.protocol = Protocol::sctp;
  EXPECT_EQ(refusal(p)->code, error_no_sctp);
  p = Parameters{};
  p.bidirectional = true;
  p.mss = 1000;
  EXPECT_FALSE(refusal(p));  // --bidir and -M are served
  p.authenticated = true;
  EXPECT_EQ(refusal(p)->why, "authentication (--username) is not served");
}

TEST(OurResults, TheWindowsBytesPerStreamAndTheProcessCpu) {
  MeasuredWindow w;
  w.seconds = 2;
  w.begin = {CounterSnapshot{100}, CounterSnapshot{200}};
  w.end = {CounterSnapshot{1100}, CounterSnapshot{2200}};
  w.system_begin.process_user_s = 1.0;
  w.system_end.process_user_s = 1.5;
  w.system_begin.process_system_s = 2.0;
  w.system_end.process_system_s = 3.0;
  Results r = our_results(false, w, {});
  EXPECT_DOUBLE_EQ(r.cpu_user, 25.0);
  EXPECT_DOUBLE_EQ(r.cpu_system, 50.0);
  EXPECT_DOUBLE_EQ(r.cpu_total, 75.0);
  EXPECT_EQ(r.sender_has_retransmits, -1);  // a pure receiver
  ASSERT_EQ(r.streams.size(), 2u);
  EXPECT_EQ(r.streams[0].id, 1);
  EXPECT_EQ(r.streams[1].id, 3);  // 3.12 skips 2
  EXPECT_EQ(r.streams[0].bytes, 1000u);
  EXPECT_EQ(r.streams[1].bytes, 2000u);
  EXPECT_EQ(r.streams[1].retransmits, -1);
  EXPECT_EQ(r.streams[1].end_time, 2.0);
  WorkerReport report;
  ConnectionStats c;
  c.stream = 1;
  c.total_retrans = 7;
  c.congestion = "bbr";
  report.connection_stats.push_back(c);
  r = our_results(true, w, {report});
  EXPECT_EQ(r.sender_has_retransmits, 1);
  EXPECT_EQ(r.streams[0].retransmits, 0);
  EXPECT_EQ(r.streams[1].retransmits, 7);
  EXPECT_EQ(r.congestion_used, "bbr");
}

}  // namespace
}  // namespace xttcp::iperf3
