// stream_figures (engine/run/stream_figures.hh): each stream's share of an interval, from what
// the timeline read at its edges: a sender's flow slots with their TCP_INFO, a TCP receiver's
// tallied connections, a UDP receiver's flows.
#include "engine/run/stream_figures.hh"

#include <gtest/gtest.h>

namespace xttcp {
namespace {

ConnectionWatch::Reading reading(uint32_t id, uint32_t slot, uint32_t retrans, uint64_t bytes = 0,
                                 uint64_t reads = 0) {
  TcpSample s;
  s.total_retrans = retrans;
  s.rtt_us = 80;
  s.snd_cwnd = 20;
  s.snd_mss = 32741;
  StreamTally::Counts tally;
  tally.bytes = bytes;
  tally.sizes.reads = reads;
  tally.sizes.bins[7] = reads;
  return {id, slot, s, tally, std::nullopt};
}

TEST(StreamFigures, ASendersStreamsAreItsSlotsWithTheirConnections) {
  const std::vector<CounterSnapshot> before = {{100, 1, {}}, {200, 2, {}}};
  const std::vector<CounterSnapshot> now = {{1100, 9, {}}, {700, 5, {}}};
  // Watch ids in connect order, which is not slot order (one worker per stream, racing).
  const std::vector<ConnectionWatch::Reading> readings_before = {reading(0, 1, 1),
                                                                 reading(1, 0, 0)};
  const std::vector<ConnectionWatch::Reading> readings_now = {reading(0, 1, 4), reading(1, 0, 2)};
  const std::vector<ConnectionInterval> connections =
      interval_figures(readings_before, readings_now, Role::sender);
  const std::vector<StreamInterval> streams = stream_figures(
      {Role::sender, false, &before, &now, nullptr, &readings_before, &readings_now, &connections});
  ASSERT_EQ(streams.size(), 2u);
  EXPECT_EQ(streams[0].key, 0u);
  EXPECT_EQ(streams[0].bytes, 1000u);
  EXPECT_EQ(streams[0].operations, 8u);
  ASSERT_TRUE(streams[0].tcp.has_value());
  EXPECT_EQ(streams[0].tcp->retransmits, 2u) << "slot 0's connection is watch id 1";
  EXPECT_EQ(streams[0].tcp->snd_mss, 32741u);
  EXPECT_EQ(streams[1].bytes, 500u);
  EXPECT_EQ(streams[1].tcp->retransmits, 3u);
}

TEST(StreamFigures, AUdpSendersDatagramsByItsFlowsSlots) {
  const std::vector<CounterSnapshot> before = {{0, 0, {}}, {0, 0, {}}};
  const std::vector<CounterSnapshot> now = {{14700, 2, {}}, {29400, 3, {}}};
  udp::FlowRecord a, b;
  a.slot = 0;
  a.counters.datagrams = 10;
  b.slot = 1;
  b.counters.datagrams = 20;
  const std::vector<udp::FlowRecord> delta = {b, a};
  const std::vector<StreamInterval> streams =
      stream_figures({Role::sender, true, &before, &now, &delta});
  ASSERT_EQ(streams.size(), 2u);
  EXPECT_EQ(streams[0].datagrams, 10u);
  EXPECT_EQ(streams[1].datagrams, 20u);
  EXPECT_FALSE(streams[0].tcp.has_value());
}

TEST(StreamFigures, ATcpReceiversConnectionsByTheirTallies) {
  const std::vector<ConnectionWatch::Reading> before = {reading(4, 0, 0, 1000, 1)};
  // Connection 5 opened in the interval: from zero.
  const std::vector<ConnectionWatch::Reading> now = {reading(4, 0, 0, 5000, 3),
                                                     reading(5, 0, 0, 700, 1)};
  const std::vector<ConnectionInterval> connections = interval_figures(before, now, Role::receiver);
  StreamEdges edges{Role::receiver, false, nullptr, nullptr, nullptr, &before, &now, &connections};
  EXPECT_TRUE(stream_figures(edges).empty()) << "no tallies: no streams";
  edges.tallies = true;
  const std::vector<StreamInterval> streams = stream_figures(edges);
  ASSERT_EQ(streams.size(), 2u);
  EXPECT_EQ(streams[0].key, 4u);
  EXPECT_EQ(streams[0].bytes, 4000u);
  EXPECT_EQ(streams[0].operations, 2u);
  ASSERT_TRUE(streams[0].read_sizes.has_value());
  EXPECT_EQ(streams[0].read_sizes->bins[7], 2u);
  EXPECT_EQ(streams[1].key, 5u);
  EXPECT_EQ(streams[1].bytes, 700u);
  EXPECT_TRUE(streams[1].tcp.has_value());
}

TEST(StreamFigures, AUdpReceiversTestFlowsThatReceived) {
  udp::FlowRecord first, silent, foreign, second;
  first.flow_id = 0x12340001;
  first.counters.datagrams = 90;
  first.counters.bytes = 90 * 1470;
  first.counters.expected = 92;
  first.counters.unique = 90;
  first.counters.reordered = 1;
  first.counters.jitter_ns = 12000;
  silent.flow_id = 0x12340002;  // its FIN came in an earlier interval
  foreign.flow_id = udp::foreign_flow;
  foreign.counters.datagrams = 5;
  second.flow_id = 0x00010003;
  second.counters.datagrams = 7;
  const std::vector<udp::FlowRecord> delta = {first, silent, foreign, second};
  const std::vector<StreamInterval> streams =
      stream_figures({Role::receiver, true, nullptr, nullptr, &delta});
  ASSERT_EQ(streams.size(), 2u);
  EXPECT_EQ(streams[0].key, 0x12340001u);
  EXPECT_EQ(streams[0].bytes, 90u * 1470);
  EXPECT_EQ(streams[0].lost, 2u);
  EXPECT_EQ(streams[0].reordered, 1u);
  EXPECT_EQ(streams[0].jitter_ns, 12000u);
  EXPECT_EQ(streams[1].key, 0x00010003u) << "in the order the flows arrived, not by id";
}

TEST(StreamFigures, AOnePortUdpReceiversSlotsAreItsStreams) {
  // The iperf3 dialect: a connected socket per stream, its one flow numbered by its slot; a
  // stream silent in the interval still has its row, and headerless datagrams are no stream's.
  const std::vector<CounterSnapshot> before = {{0, 0, {}}, {1400, 1, {}}};
  const std::vector<CounterSnapshot> now = {{14000, 3, {}}, {1400, 1, {}}};
  udp::FlowRecord stream, headerless;
  stream.slot = 0;
  stream.flow_id = 0;
  stream.counters.datagrams = 10;
  stream.counters.expected = 12;
  stream.counters.unique = 10;
  stream.counters.reordered = 1;
  stream.counters.jitter_ns = 3000;
  headerless.slot = 0;
  headerless.flow_id = udp::headerless_flow;
  headerless.counters.datagrams = 4;
  const std::vector<udp::FlowRecord> delta = {headerless, stream};
  StreamEdges edges{Role::receiver, true, &before, &now, &delta};
  edges.slots_are_streams = true;
  const std::vector<StreamInterval> streams = stream_figures(edges);
  ASSERT_EQ(streams.size(), 2u);
  EXPECT_EQ(streams[0].key, 0u);
  EXPECT_EQ(streams[0].bytes, 14000u);
  EXPECT_EQ(streams[0].datagrams, 10u);
  EXPECT_EQ(streams[0].lost, 2u);
  EXPECT_EQ(streams[0].reordered, 1u);
  EXPECT_EQ(streams[0].jitter_ns, 3000u);
  EXPECT_EQ(streams[1].bytes, 0u);
  EXPECT_EQ(streams[1].datagrams, 0u);
}

}  // namespace
}  // namespace xttcp
