// The client's test (engine/iperf3/client_test.hh): the parameters it sends for a command line,
// as 3.12's client fills them, and the test its workers run.
#include <gtest/gtest.h>

#include "engine/iperf3/client_test.hh"
#include "tests/unit/cli/cli_test_util.hh"
#include "tools/cli/command.hh"

namespace xttcp::iperf3 {
namespace {

TestSpec client_spec(const std::string& line) {
  auto command = parse_iperf3_dialect(test::words(line));
  EXPECT_TRUE(command.has_value()) << "'" << line << "': " << command.error().message;
  return command ? command->spec : TestSpec{};
}

// The client's test as its workers of its one direction run it (-R: receiving).
TestSpec engine_spec(const std::string& line) {
  const TestSpec client = client_spec(line);
  return client_engine_spec(client, !client.iperf3.reverse);
}

TEST(ClientParameters, AsIperf3FillsThem) {
  // wire-tcp1.txt: iperf3 -c H -t 2 sends exactly these keys.
  EXPECT_EQ(write_parameters(client_parameters(client_spec("-c h -t 2"))),
            R"({"tcp":true,"omit":0,"time":2,"num":0,"blockcount":0,"parallel":1,"len":131072,)"
            R"("pacing_timer":1000,"client_version":"3.12"})");
  // wire-bidir.txt: iperf3 -c H -t 1 --bidir.
  EXPECT_EQ(write_parameters(client_parameters(client_spec("-c h -t 1 --bidir"))),
            R"({"tcp":true,"omit":0,"time":1,"num":0,"blockcount":0,"parallel":1,)"
            R"("bidirectional":true,"len":131072,"pacing_timer":1000,"client_version":"3.12"})");
  EXPECT_EQ(write_parameters(client_parameters(client_spec("-c h -t 1 -M 1400"))),
            R"({"tcp":true,"omit":0,"time":1,"num":0,"blockcount":0,"MSS":1400,"parallel":1,)"
            R"("len":131072,"pacing_timer":1000,"client_version":"3.12"})");
  const Parameters p =
      client_parameters(client_spec("-c h -P 4 -R -O 1 -l 64K -w 1M -b 100M -N -C cubic -T x"));
  EXPECT_EQ(p.parallel, 4u);
  EXPECT_TRUE(p.reverse);
  EXPECT_EQ(p.omit_s, 1u);
  EXPECT_EQ(p.length, 65536u);
  EXPECT_EQ(p.window, 1048576u);
  EXPECT_EQ(p.rate_bps, 100000000u);  // per stream, as iperf3 sends it
  EXPECT_TRUE(p.nodelay);
  EXPECT_EQ(p.congestion, "cubic");
  EXPECT_EQ(p.title, "x");
  // wire-gso.txt: iperf3 -c H -t 1 --get-server-output.
  EXPECT_EQ(write_parameters(client_parameters(client_spec("-c h -t 1 --get-server-output"))),
            R"({"tcp":true,"omit":0,"time":1,"num":0,"blockcount":0,"parallel":1,"len":131072,)"
            R"("pacing_timer":1000,"get_server_output":1,"client_version":"3.12"})");
  const Parameters counted = client_parameters(client_spec("-c h -n 10M"));
  EXPECT_EQ(counted.time_s, 0u);  // -n ends the test: "time" 0, as 3.12 sends
  EXPECT_EQ(counted.bytes, 10485760u);
}

TEST(ClientParameters, UdpAsIperf3FillsThem) {
  // wire-udp.txt and wire-udp64.txt: iperf3 -c H -u -t 1 -b 10M -l 32768 [--udp-counters-64bit].
  EXPECT_EQ(write_parameters(client_parameters(client_spec("-c h -u -t 1 -b 10M -l 32768"))),
            R"({"udp":true,"omit":0,"time":1,"num":0,"blockcount":0,"parallel":1,"len":32768,)"
            R"("bandwidth":10000000,"pacing_timer":1000,"client_version":"3.12"})");
  EXPECT_EQ(
      write_parameters(
          client_parameters(client_spec("-c h -u -t 1 -b 10M -l 32768 --udp-counters-64bit"))),
      R"({"udp":true,"omit":0,"time":1,"num":0,"blockcount":0,"parallel":1,"len":32768,)"
      R"("bandwidth":10000000,"pacing_timer":1000,"udp_counters_64bit":1,"client_version":"3.12"})");
  const TestSpec udp = engine_spec("-c h -u -P 2 --udp-counters-64bit");
  EXPECT_EQ(udp.workload.protocol, xttcp::Protocol::udp);
  EXPECT_EQ(udp.workload.udp_payload, UdpPayload::iperf3);
  EXPECT_TRUE(udp.iperf3.udp_counters_64bit);
  EXPECT_EQ(udp.workload.rate_limit_bps, 2 * 1048576u);  // 3.12's 1 Mibit/s per stream
}

TEST(ClientEngineSpec, TheDirectionAndThePacing) {
  const TestSpec sends = engine_spec("-c h -P 4 -b 100M -t 3 -O 2");
  EXPECT_EQ(sends.role, Role::sender);
  EXPECT_TRUE(sends.layout.one_port);
  EXPECT_EQ(sends.layout.ports, 4u);
  EXPECT_EQ(sends.workload.rate_limit_bps, 400000000u);  // xttcp's -B is over every stream
  EXPECT_EQ(sends.workload.warmup_s, 2u);                // -O as the warm-up
  EXPECT_EQ(sends.workload.duration_s, 3u);
  EXPECT_EQ(sends.workload.cooldown_s, 0u);
  const TestSpec receives = engine_spec("-c h -P 4 -b 100M -R -Z");
  EXPECT_EQ(receives.role, Role::receiver);
  EXPECT_EQ(receives.workload.rate_limit_bps, 0u);  // the server paces what it sends
  EXPECT_EQ(receives.io.zerocopy, ZeroCopy::off);
}

TEST(BothEnds, EachStreamsTwoEndsByStreamId) {
  Results ours, theirs;
  ours.sender_has_retransmits = 1;
  ours.streams = {{1, 1000, 2, 0, 0, 0, 0, 2.0}, {3, 2000, 0, 0, 0, 0, 0, 2.0}};
  theirs.streams = {{3, 1990, -1, 0, 0, 0, 0, 2.01}, {1, 995, -1, 0, 0, 0, 0, 2.01}};
  const auto both = both_ends(true, ours, theirs, {5, 7}, 2.0);
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[0].id, 5);  // the socket number printed
  EXPECT_EQ(both[0].sent_bytes, 1000u);
  EXPECT_EQ(both[0].received_bytes, 995u);  // matched by id, not by place
  EXPECT_EQ(both[1].received_bytes, 1990u);
  EXPECT_EQ(both[0].retransmits, 2);
  EXPECT_DOUBLE_EQ(both[1].received_s, 2.01);
  // Receiving (-R): the server sent; its retransmits only when it knows them.
  theirs.sender_has_retransmits = -1;
  const auto reverse = both_ends(false, ours, theirs, {5, 7}, 2.0);
  EXPECT_EQ(reverse[0].sent_bytes, 995u);
  EXPECT_EQ(reverse[0].received_bytes, 1000u);
  EXPECT_FALSE(reverse[0].retransmits);
  // A stream the server did not report: 0 from it.
  theirs.streams.pop_back();
  EXPECT_EQ(both_ends(true, ours, theirs, {5, 7}, 2.0)[0].received_bytes, 0u);
}

TEST(BothEnds, UdpTakesEachFigureFromItsEnd) {
  Results ours, theirs;
  ours.streams = {{1, 1000, -1, 0, 0, 10}, {3, 2000, -1, 0, 0, 20}};
  theirs.streams = {{3, 1900, -1, 0.002, 1, 20}, {1, 990, -1, 0.001, 0, 10}};
  const auto sends = udp_both_ends(true, ours, theirs, {5, 7}, 2.0, {4, 4});
  ASSERT_EQ(sends.size(), 2u);
  EXPECT_EQ(sends[1].sent_packets, 20);
  EXPECT_EQ(sends[1].received_bytes, 1900u);  // matched by id
  EXPECT_DOUBLE_EQ(sends[1].jitter_ms, 2.0);  // the receiver's, in ms
  EXPECT_EQ(sends[1].lost, 1);
  EXPECT_EQ(sends[0].out_of_order, 0);  // known only to a receiving client
  const auto receives = udp_both_ends(false, theirs, ours, {5, 7}, 2.0, {4, 0});
  EXPECT_EQ(receives[0].sent_packets, 20);  // the server's count of stream 3
  EXPECT_EQ(receives[0].lost, 1);
  EXPECT_EQ(receives[0].out_of_order, 4);
}

}  // namespace
}  // namespace xttcp::iperf3
