// Count mode over UDP: the end marker's layout and round trip, its schedule, and the receiver's
// completion rule (DatagramAccounting): markers are no data, the first marker of each flow ends
// it once, its sent count makes tail loss visible.
#include "engine/udp/end_marker.hh"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "engine/udp/datagram_accounting.hh"
#include "engine/udp/datagram_header.hh"
#include "engine/udp/flow_registry.hh"
#include "hex.hh"

namespace xttcp::udp {
namespace {

TEST(EndMarker, LayoutIsAHeaderWithTheEndFlagAndA64BitCount) {
  std::array<unsigned char, end_marker_size> bytes{};
  bytes.fill(0xEE);
  encode_end_marker({0x01020304, 0x0000000500000007, false, 0x1122334455667788}, bytes.data());
  //           magic    v f    rsvd flow_id  seq(low32) send_time_ns       sent
  EXPECT_EQ(test::hex(bytes.data(), bytes.size()),
            "58545544"
            "01"
            "01"
            "0000"
            "01020304"
            "00000007"
            "1122334455667788"
            "0000000500000007");
  encode_end_marker({1, 2, true, 3}, bytes.data());
  EXPECT_EQ(bytes[header_flags_offset], flag_end_of_flow | flag_compat_data);
}

TEST(EndMarker, RoundTrips) {
  for (const EndMarker& marker :
       {EndMarker{7, 20480, false, 99}, EndMarker{0xFFFFFFFF, ~uint64_t{0}, true, ~uint64_t{0}},
        EndMarker{}}) {
    std::array<unsigned char, end_marker_size> bytes{};
    encode_end_marker(marker, bytes.data());
    EndMarker decoded{1, 2, false, 3};
    ASSERT_TRUE(decode_end_marker(bytes.data(), bytes.size(), decoded));
    EXPECT_EQ(decoded, marker);
    DatagramHeader header;
    ASSERT_TRUE(decode(bytes.data(), bytes.size(), header));  // still a native header
    EXPECT_TRUE(has_end_flag(bytes.data()));
  }
}

TEST(EndMarker, DataDatagramsAndShortOrForeignBytesAreNoMarker) {
  std::array<unsigned char, end_marker_size> bytes{};
  encode(DatagramHeader{1, 2, 3}, bytes.data());
  EXPECT_FALSE(has_end_flag(bytes.data()));
  EndMarker decoded{5, 6, true, 7};
  EXPECT_FALSE(decode_end_marker(bytes.data(), bytes.size(), decoded));  // no end flag
  encode_end_marker({1, 2, false, 3}, bytes.data());
  EXPECT_FALSE(decode_end_marker(bytes.data(), end_marker_size - 1, decoded));  // cut short
  std::vector<unsigned char> ntttcp(64, 'B');
  EXPECT_FALSE(decode_end_marker(ntttcp.data(), ntttcp.size(), decoded));
  EXPECT_EQ(decoded, (EndMarker{5, 6, true, 7}));  // untouched on failure
}

TEST(EndMarkerSchedule, MarkersLeaveAtTheirDelaysThenFinish) {
  constexpr uint64_t ms = 1'000'000;
  EndMarkerSchedule schedule;
  EXPECT_FALSE(schedule.begun());
  EXPECT_FALSE(schedule.due(0));
  EXPECT_EQ(schedule.wait_ns(0), 0u);
  const uint64_t start = 1000 * ms;
  schedule.begin(start);
  std::vector<uint64_t> sent_at;
  for (uint64_t now = start; now < start + 500 * ms && !schedule.finished(); now += ms) {
    if (!schedule.due(now)) {
      EXPECT_GT(schedule.wait_ns(now), 0u);
      continue;
    }
    EXPECT_EQ(schedule.wait_ns(now), 0u);
    schedule.marker_sent();
    sent_at.push_back((now - start) / ms);
  }
  EXPECT_TRUE(schedule.finished());
  EXPECT_EQ(sent_at, (std::vector<uint64_t>{0, 2, 10, 30, 100}));
  EXPECT_EQ(schedule.markers_sent(), end_marker_repeats);
  EXPECT_FALSE(schedule.due(start + 1000 * ms));
}

TEST(EndMarkerSchedule, FinishNowStopsTheMarkers) {
  EndMarkerSchedule schedule;
  schedule.begin(0);
  schedule.marker_sent();
  schedule.finish_now();
  EXPECT_TRUE(schedule.finished());
  EXPECT_FALSE(schedule.due(~uint64_t{0}));
}

// The receiver's side: a socket's accounting fed data and markers of two flows.
struct Receiver {
  Receiver() : accounting(registry, 0, &on_end) {}
  bool data(uint32_t flow, uint32_t sequence, std::size_t length = 100) {
    std::vector<unsigned char> datagram(length, 'x');
    encode(DatagramHeader{flow, sequence, 0}, datagram.data());
    return accounting.on_datagram(datagram.data(), length, length, 0);
  }
  bool marker(uint32_t flow, uint64_t sent, bool compat = false) {
    std::array<unsigned char, end_marker_size> bytes{};
    encode_end_marker({flow, sent, compat, 0}, bytes.data());
    const bool is_data = accounting.on_datagram(bytes.data(), bytes.size(), bytes.size(), 0);
    accounting.announce_ended();
    return is_data;
  }
  UdpFlowSnapshot flow(uint32_t flow_id) const {
    for (const FlowRecord& record : registry.snapshot())
      if (record.flow_id == flow_id) return record.counters;
    return {};
  }

  UdpFlowRegistry registry;
  int ended = 0;
  std::function<void()> on_end = [this] { ++ended; };
  DatagramAccounting accounting;
};

TEST(EndMarkerReceiver, MarkersAreNoDataAndEndEachFlowOnce) {
  Receiver r;
  EXPECT_TRUE(r.data(1, 0));
  EXPECT_TRUE(r.data(1, 1));
  EXPECT_TRUE(r.data(2, 0));
  EXPECT_FALSE(r.marker(1, 2));
  EXPECT_EQ(r.ended, 1);
  EXPECT_FALSE(r.marker(1, 2));  // a repeat
  EXPECT_FALSE(r.marker(1, 2));
  EXPECT_EQ(r.ended, 1);
  EXPECT_EQ(r.accounting.flows_ended(), 1u);
  EXPECT_FALSE(r.marker(2, 1));
  EXPECT_EQ(r.ended, 2);
  const UdpFlowSnapshot one = r.flow(1);
  EXPECT_EQ(one.datagrams, 2u);  // the markers counted nowhere
  EXPECT_EQ(one.bytes, 200u);
  EXPECT_EQ(one.unique, 2u);
  EXPECT_EQ(one.expected, 2u);
  EXPECT_EQ(one.lost(), 0u);
}

TEST(EndMarkerReceiver, TheEngineHearsOfAnEndOnlyWhenTheReceiverAnnouncesIt) {
  // A receiver counts a batch's bytes after accounting its datagrams: the engine, which may end
  // the run at once, must not hear of the marker before those bytes are counted.
  Receiver r;
  r.accounting.end_compat_after(1);  // count mode, -n 1: data-less flows may end (lost whole)
  std::array<unsigned char, end_marker_size> bytes{};
  encode_end_marker({1, 1, false, 0}, bytes.data());
  r.accounting.on_datagram(bytes.data(), bytes.size(), bytes.size(), 0);
  encode_end_marker({2, 1, false, 0}, bytes.data());
  r.accounting.on_datagram(bytes.data(), bytes.size(), bytes.size(), 0);
  EXPECT_EQ(r.accounting.flows_ended(), 2u);
  EXPECT_EQ(r.ended, 0);
  r.accounting.announce_ended();
  EXPECT_EQ(r.ended, 2);
  r.accounting.announce_ended();
  EXPECT_EQ(r.ended, 2);
}

TEST(EndMarkerReceiver, TheSentCountMakesTailLossVisible) {
  Receiver r;
  r.data(1, 0);
  r.data(1, 2);  // 1 lost in a gap
  EXPECT_EQ(r.flow(1).lost(), 1u);
  r.marker(1, 6);  // 3, 4 and 5 never came: lost at the tail
  EXPECT_EQ(r.flow(1).expected, 6u);
  EXPECT_EQ(r.flow(1).lost(), 4u);
  r.data(1, 4);  // a late arrival after the marker keeps the sent count
  EXPECT_EQ(r.flow(1).expected, 6u);
  EXPECT_EQ(r.flow(1).lost(), 3u);
}

TEST(EndMarkerReceiver, AFlowWhoseDataWasAllLostIsLostWhole) {
  Receiver r;
  r.accounting.end_compat_after(10);  // the receiver's -n: a marker naming it ends the flow
  r.marker(8, 7);                     // no data, another count: someone else's, ends nothing
  EXPECT_EQ(r.ended, 0);
  r.marker(9, 10);
  EXPECT_EQ(r.ended, 1);
  EXPECT_EQ(r.flow(9).unique, 0u);
  EXPECT_EQ(r.flow(9).lost(), 10u);
}

TEST(EndMarkerReceiver, CompatDataFlowsEndWithoutAFlowOfTheirOwn) {
  Receiver r;
  std::vector<unsigned char> ntttcp(128, 'B');
  EXPECT_TRUE(r.accounting.on_datagram(ntttcp.data(), ntttcp.size(), ntttcp.size(), 0));
  EXPECT_FALSE(r.marker(4, 1, true));
  EXPECT_FALSE(r.marker(4, 1, true));
  EXPECT_FALSE(r.marker(5, 1, true));
  EXPECT_EQ(r.ended, 2);
  EXPECT_EQ(r.accounting.flows(), 0u);  // no native flow registered for them
  const std::vector<FlowRecord> flows = r.registry.snapshot();
  ASSERT_EQ(flows.size(), 1u);
  EXPECT_EQ(flows[0].flow_id, compat_flow);
  EXPECT_EQ(flows[0].counters.datagrams, 1u);
}

// A real NTttcp sender sends no marker: in count mode its port's flow ends at the N-th
// datagram, as NTttcp's receiver counts N receives; a marker after that (an xttcp sender of
// NTttcp's payload) does not end it again, nor does one more datagram.
TEST(EndMarkerReceiver, CompatFlowEndsAtItsNthDatagramOnce) {
  Receiver r;
  r.accounting.end_compat_after(3);
  std::vector<unsigned char> ntttcp(128, 'B');
  auto datagram = [&] {
    const bool is_data = r.accounting.on_datagram(ntttcp.data(), ntttcp.size(), ntttcp.size(), 0);
    r.accounting.announce_ended();
    return is_data;
  };
  EXPECT_TRUE(datagram());
  EXPECT_TRUE(datagram());
  EXPECT_EQ(r.ended, 0);
  EXPECT_TRUE(datagram());
  EXPECT_EQ(r.ended, 1);
  EXPECT_FALSE(r.marker(4, 3, true));
  EXPECT_TRUE(datagram());
  EXPECT_EQ(r.ended, 1);
}

// Datagrams lost: the marker ends the flow first, and the count reached later does not again.
TEST(EndMarkerReceiver, CompatFlowEndedByItsMarkerIsNotEndedAgainByItsCount) {
  Receiver r;
  r.accounting.end_compat_after(2);
  std::vector<unsigned char> ntttcp(128, 'B');
  EXPECT_FALSE(r.marker(4, 2, true));
  EXPECT_EQ(r.ended, 1);
  for (int i = 0; i < 3; ++i) {
    r.accounting.on_datagram(ntttcp.data(), ntttcp.size(), ntttcp.size(), 0);
    r.accounting.announce_ended();
  }
  EXPECT_EQ(r.ended, 1);
}

TEST(EndMarkerReceiver, WithoutACallbackMarkersStillEndFlows) {
  UdpFlowRegistry registry;
  DatagramAccounting accounting(registry, 0);
  accounting.end_compat_after(1);  // count mode, -n 1: the marker names it
  std::array<unsigned char, end_marker_size> bytes{};
  encode_end_marker({3, 1, false, 0}, bytes.data());
  EXPECT_FALSE(accounting.on_datagram(bytes.data(), bytes.size(), bytes.size(), 0));
  EXPECT_EQ(accounting.flows_ended(), 1u);
  accounting.announce_ended();  // nobody to tell
}

TEST(EndMarkerReceiver, AMarkerReadOnlyInPartEndsNothing) {
  Receiver r;
  std::array<unsigned char, end_marker_size> bytes{};
  encode_end_marker({3, 1, false, 0}, bytes.data());
  EXPECT_FALSE(r.accounting.on_datagram(bytes.data(), header_size, bytes.size(), 0));
  EXPECT_EQ(r.ended, 0);
}

}  // namespace
}  // namespace xttcp::udp
