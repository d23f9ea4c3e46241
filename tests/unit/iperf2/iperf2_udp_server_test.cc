// The iperf2 layout's stream rules (docs/hostile-peers.md, "The iperf2 server"): a stream ends
// with its FIN, after iperf2_silence_ns without a datagram, or when newer sources push it out of
// the flow table, each with an event carrying what it had; a FIN's reports keep to a budget (a
// quarter second apart, ten per stream, never more bytes than the stream brought); a datagram
// without iperf 2's head is no stream's.
#include <gtest/gtest.h>

#include "engine/udp/flow_registry.hh"
#include "tests/unit/iperf2/iperf2_datagrams.hh"

namespace xttcp {
namespace {

using test::Iperf2Datagrams;

uint64_t answers(const std::vector<udp::Iperf2StreamEvent>& events) {
  uint64_t n = 0;
  for (const udp::Iperf2StreamEvent& e : events) n += e.answer ? 1 : 0;
  return n;
}

TEST(Iperf2Server, AStreamWithoutItsFinEndsAfterTheSilence) {
  Iperf2Datagrams d;
  d.from(5000);
  d.send(1, 1'000'000);
  d.send(2, 2'000'000);
  EXPECT_EQ(d.flows_started, 1);
  d.steady_ns += udp::iperf2_silence_ns - 1;
  d.accounting.end_silent_streams(d.steady_ns);
  d.accounting.announce_ended();
  EXPECT_TRUE(d.events().empty());
  EXPECT_EQ(d.flows_ended, 0);
  d.steady_ns += 1;
  d.accounting.end_silent_streams(d.steady_ns);
  d.accounting.announce_ended();
  EXPECT_EQ(d.flows_ended, 1);  // the test it held can end
  auto events = d.events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].how, udp::StreamEnd::silent);
  EXPECT_TRUE(events[0].ended_now);
  EXPECT_FALSE(events[0].answer);  // nobody asked
  EXPECT_EQ(events[0].report.bytes, 400u);
  EXPECT_EQ(events[0].report.datagrams, 2u);
  EXPECT_EQ(events[0].report.stop_usec, 1000u);  // first datagram to its last
  // Its FIN after all: answered with the figures it ended with, not ended again.
  d.send(-3, 3'000'000);
  events = d.events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_FALSE(events[0].ended_now);
  EXPECT_TRUE(events[0].answer);
  EXPECT_EQ(events[0].report.bytes, 400u);
  EXPECT_EQ(d.flows_ended, 1);
  d.accounting.end_silent_streams(d.steady_ns + 10 * udp::iperf2_silence_ns);
  EXPECT_TRUE(d.events().empty());  // an ended stream ends once
}

TEST(Iperf2Server, AStreamPushedOutOfTheTableEndsWithWhatItHad) {
  constexpr uint32_t table = 64;
  Iperf2Datagrams d(table);
  d.from(1);
  for (int64_t n = 1; n <= 10; ++n) d.send(n, static_cast<uint64_t>(n));  // a real stream
  uint64_t at = 100;
  // A spray of sources, one datagram each: they push one another out, never the real stream.
  uint64_t ended = 0;
  for (uint32_t source = 2; source < 2000; ++source) {
    d.from(source);
    d.send(1, at++);
    for (const udp::Iperf2StreamEvent& e : d.events()) {
      EXPECT_EQ(e.how, udp::StreamEnd::evicted);
      EXPECT_TRUE(e.ended_now);
      EXPECT_FALSE(e.answer);
      EXPECT_NE(e.flow_id, 1u);
      EXPECT_EQ(e.source.port(), e.flow_id);  // the source it came from, not the newcomer
      EXPECT_EQ(e.report.datagrams, 1u);
      ++ended;
    }
  }
  EXPECT_EQ(ended, 1998u - (table - 1));
  EXPECT_EQ(static_cast<uint64_t>(d.flows_ended), ended);
  EXPECT_EQ(d.flows_started, 1999);
  // The real stream is still there: its FIN ends it with all it had.
  d.from(1);
  d.send(-11, at++);
  auto events = d.events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].how, udp::StreamEnd::fin);
  EXPECT_EQ(events[0].report.datagrams, 11u);
  EXPECT_EQ(events[0].report.lost, 0u);
  // A table of settled streams: the one silent longest leaves, ended with what it had.
  Iperf2Datagrams full(table);
  for (uint32_t source = 1; source <= table + 1; ++source) {
    full.from(source);
    for (int64_t n = 1; n <= 4; ++n) full.send(n, source * 10 + n);
  }
  events = full.events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].flow_id, 1u);
  EXPECT_EQ(events[0].how, udp::StreamEnd::evicted);
  EXPECT_EQ(events[0].report.datagrams, 4u);
  EXPECT_EQ(full.flows_ended, 1);
}

TEST(Iperf2Server, AFinIsAnsweredWithinTheReportBudget) {
  Iperf2Datagrams d;
  d.from(7);
  for (int64_t n = 1; n <= 100; ++n) d.send(n, static_cast<uint64_t>(n), 200);  // 20,000 bytes
  // A client repeating its FIN every 10 ms for 2 s: a report at most every quarter second.
  uint64_t answered = 0;
  for (int i = 0; i < 200; ++i) {
    d.send(-101, 1000 + i);
    answered += answers(d.events());
    d.steady_ns += 10'000'000;
  }
  EXPECT_EQ(answered, 8u);  // 0, 0.25, ... 1.75 s
  // However long it goes on: ten reports per stream at most.
  for (int i = 0; i < 100; ++i) {
    d.send(-101, 5000 + i);
    answered += answers(d.events());
    d.steady_ns += udp::iperf2_report_spacing_ns;
  }
  EXPECT_EQ(answered, udp::iperf2_reports_per_stream);
}

TEST(Iperf2Server, ReportsNeverOutweighWhatTheSourceSent) {
  Iperf2Datagrams d;
  // A forged source's 16-byte FINs, a quarter second apart: 128-byte reports would be 8x.
  d.from(9);
  uint64_t sent = 0, answered = 0;
  for (int i = 0; i < 40; ++i) {
    d.send(-2, 1000 + i, 16);
    sent += 16;
    answered += answers(d.events());
    EXPECT_LE(answered * iperf2::server_report_size, sent);
    d.steady_ns += udp::iperf2_report_spacing_ns;
  }
  EXPECT_EQ(answered, 5u);  // 128-byte reports as 640 bytes came in
  // A real stream's first FIN is answered at once.
  d.from(10);
  d.send(1, 1);
  d.send(-2, 2, 1470);
  EXPECT_EQ(answers(d.events()), 1u);
}

TEST(Iperf2Server, ADatagramWithoutTheHeadIsNoStreams) {
  Iperf2Datagrams d;
  d.from(11);
  for (std::size_t length = 0; length < iperf2::udp_head_size; ++length)
    EXPECT_FALSE(d.send(1, 1, length));
  EXPECT_FALSE(d.send(0, 2));  // number 0: no client's
  EXPECT_EQ(d.flows_started, 0);
  EXPECT_EQ(d.accounting.flows(), 0u);
  const udp::ForeignCounts apart = udp::foreign_counts(d.registry.snapshot());
  EXPECT_EQ(apart.headerless_datagrams, iperf2::udp_head_size + 1);
  EXPECT_EQ(apart.headerless_bytes, (iperf2::udp_head_size - 1) * iperf2::udp_head_size / 2 + 200);
  EXPECT_EQ(udp::sum(d.registry.snapshot()).datagrams, 0u);  // none of the test's
}

}  // namespace
}  // namespace xttcp
