// iperf3's UDP on the wire (engine/iperf3/udp_datagram.hh) and a receiver's accounting of it
// (udp::DatagramAccounting's iperf3 layouts): the head in both widths, the hello and its reply
// in either byte order, and loss, reordering and jitter as 3.12 reports them.
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "engine/iperf3/udp_datagram.hh"
#include "engine/udp/datagram_accounting.hh"
#include "engine/udp/flow_registry.hh"

namespace xttcp::iperf3 {
namespace {

TEST(UdpHead, NetworkOrderInBothWidths) {
  std::array<unsigned char, 16> out{};
  encode_head({0x00009a54, 123456, 7}, false, out.data());
  EXPECT_EQ(out, (std::array<unsigned char, 16>{0, 0, 0x9a, 0x54, 0, 1, 0xe2, 0x40, 0, 0, 0, 7}));
  encode_head({1, 2, 0x0000000100000003ull}, true, out.data());
  EXPECT_EQ(out, (std::array<unsigned char, 16>{0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 3}));
  UdpHead head;
  ASSERT_TRUE(decode_head(out.data(), 16, true, head));
  EXPECT_EQ(head, (UdpHead{1, 2, 0x0000000100000003ull}));
  ASSERT_TRUE(decode_head(out.data(), 12, false, head));
  EXPECT_EQ(head.sequence, 1u);  // the 32-bit form reads the high word as the count
  EXPECT_FALSE(decode_head(out.data(), 11, false, head));
  EXPECT_FALSE(decode_head(out.data(), 15, true, head));
}

TEST(UdpHead, StampedFromOneAfterWhatWasSent) {
  std::vector<unsigned char> batch(3 * 20, 0xAA);
  stamp_heads(batch.data(), 20, 3, 41, 5'000'123'456, false);
  for (uint32_t i = 0; i < 3; ++i) {
    UdpHead head;
    ASSERT_TRUE(decode_head(batch.data() + i * 20, 20, false, head));
    EXPECT_EQ(head, (UdpHead{5, 123, 42 + i}));
    EXPECT_EQ(batch[i * 20 + 12], 0xAA);  // the payload after the head is untouched
  }
}

TEST(UdpHello, EitherByteOrderAndNothingElse) {
  EXPECT_TRUE(is_udp_hello(udp_hello));
  EXPECT_TRUE(is_udp_hello(std::array<unsigned char, 4>{0x36, 0x37, 0x38, 0x39}));
  EXPECT_FALSE(is_udp_hello(std::array<unsigned char, 5>{0x39, 0x38, 0x37, 0x36, 0}));
  EXPECT_FALSE(is_udp_hello(std::array<unsigned char, 4>{0, 0, 0, 1}));
  EXPECT_TRUE(is_udp_reply(udp_reply));
  EXPECT_TRUE(is_udp_reply(std::array<unsigned char, 4>{0x39, 0x38, 0x37, 0x36}));
  EXPECT_TRUE(is_udp_reply(std::array<unsigned char, 4>{0x3A, 0xDE, 0x68, 0xB1}));  // 987654321
  EXPECT_TRUE(is_udp_reply(std::array<unsigned char, 4>{0xB1, 0x68, 0xDE, 0x3A}));
  EXPECT_FALSE(is_udp_reply(std::array<unsigned char, 3>{0x36, 0x37, 0x38}));
}

// One stream's datagrams of 100 bytes, by sequence, arriving 1 ms apart (send times 1 ms apart
// but for `late`, which left 2 ms later than its turn).
udp::UdpFlowSnapshot receive(const std::vector<uint64_t>& sequences, bool wide, uint64_t late = 0) {
  udp::UdpFlowRegistry registry;
  udp::DatagramAccounting accounting(
      registry, 3, nullptr, wide ? udp::DatagramLayout::iperf3_wide : udp::DatagramLayout::iperf3);
  uint64_t arrival = 1'000'000'000;
  for (uint64_t sequence : sequences) {
    std::vector<unsigned char> packet(100, 0);
    const uint64_t sent_us = sequence * 1000 + (sequence == late ? 2000 : 0);
    encode_head({static_cast<uint32_t>(sent_us / 1'000'000),
                 static_cast<uint32_t>(sent_us % 1'000'000), sequence},
                wide, packet.data());
    EXPECT_TRUE(accounting.on_datagram(packet.data(), packet.size(), packet.size(), arrival));
    arrival += 1'000'000;
  }
  std::vector<unsigned char> runt(udp_head_size(wide) - 1, 0);  // no head: no data
  EXPECT_FALSE(accounting.on_datagram(runt.data(), runt.size(), runt.size(), arrival));
  udp::UdpFlowSnapshot stream;
  for (const udp::FlowRecord& r : registry.snapshot())
    if (udp::is_sender_flow_id(r.flow_id)) {
      EXPECT_EQ(r.slot, 3u);
      EXPECT_EQ(r.flow_id, 3u);  // the socket's slot is its one stream
      stream = r.counters;
    }
  return stream;
}

TEST(UdpAccounting, LossIsTheGapsBelowTheHighestSequence) {
  // 1..6 without 3 and 5: 6 packets (the highest), 2 lost; 5 came late, filling its gap.
  udp::UdpFlowSnapshot s = receive({1, 2, 4, 6}, false);
  EXPECT_EQ(s.expected, 6u);
  EXPECT_EQ(s.lost(), 2u);
  EXPECT_EQ(s.bytes, 400u);
  s = receive({1, 2, 4, 6, 5}, true);
  EXPECT_EQ(s.expected, 6u);
  EXPECT_EQ(s.lost(), 1u);
  EXPECT_EQ(s.reordered, 1u);
  EXPECT_EQ(receive({1, 2, 3, 4}, false).lost(), 0u);
}

TEST(UdpAccounting, JitterFromTheSendersClock) {
  EXPECT_EQ(receive({1, 2, 3, 4}, false).jitter_ns, 0u);  // transit constant
  EXPECT_GT(receive({1, 2, 3, 4}, false, 3).jitter_ns, 0u);
}

TEST(UdpAccounting, SixtyFourBitSequencesPastTwoToTheThirtyTwo) {
  const uint64_t base = (uint64_t{1} << 32) - 2;
  udp::UdpFlowSnapshot s = receive({base, base + 1, base + 2, base + 3}, true);
  EXPECT_EQ(s.unique, 4u);
  EXPECT_EQ(s.lost(), 0u);  // a flow met past the first window counts from its first datagram
}

}  // namespace
}  // namespace xttcp::iperf3
