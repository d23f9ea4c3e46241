// Ethernet frames the dpdk backend receives: parse_udp for the data path, the ARP and neighbour
// solicitation answers a receiver sends kernel peers (rewritten in place in the mbuf, within
// its tailroom), and the ARP reply / neighbour advertisement a sender resolves its peer from.
// An answer we write must be one our own resolver accepts, with our MAC.
//
// Input: byte 0 = settings: bit 0: our address is the one the frame asks for (else 10.0.0.1 /
// fd00::1); bits 1-7: the mbuf's tailroom / 2. The rest is the frame as received.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "io_backends/dpdk/frame.hh"
#include "tests/fuzz/fuzz_check.hh"

namespace frame = xttcp::frame;

namespace {

constexpr frame::MacAddress kOurMac{0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
constexpr size_t kArpTarget = frame::ethernet_bytes + 24;  // the IPv4 address asked for
constexpr size_t kNdTarget = frame::ethernet_bytes + frame::ipv6_bytes + 8;

uint32_t get32(const uint8_t* at) {
  return uint32_t{at[0]} << 24 | uint32_t{at[1]} << 16 | uint32_t{at[2]} << 8 | at[3];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool asked_for_us = (data[0] & 1) != 0;
  const size_t tailroom = static_cast<size_t>(data[0] >> 1) * 2;
  const uint8_t* received = data + 1;
  const size_t length = size - 1;

  uint32_t our_ip = 0x0a000001;
  frame::Ipv6Address our_ip6{0xfd};
  our_ip6[15] = 1;
  if (asked_for_us && length >= kArpTarget + 4) our_ip = get32(received + kArpTarget);
  if (asked_for_us && length >= kNdTarget + 16)
    std::memcpy(our_ip6.data(), received + kNdTarget, 16);

  // The receiver's data path.
  if (const auto view = frame::parse_udp(received, length)) {
    FUZZ_CHECK(view->payload >= received + frame::headers_bytes);
    FUZZ_CHECK(view->payload + view->payload_length <= received + length);
    if (view->ipv6) {
      FUZZ_CHECK(view->destination_ip6 + 16 <= received + length);
    }
    return 0;
  }

  // The sender resolving its peer.
  (void)frame::arp_sender_mac(received, length, our_ip);
  (void)frame::neighbor_advertisement_mac(received, length, our_ip6);

  // The receiver answering a kernel peer, in the mbuf: exactly `length + tailroom` bytes, so
  // ASan sees any write past its end.
  const size_t capacity = length + tailroom;
  const auto mbuf = std::make_unique<uint8_t[]>(capacity);
  std::memcpy(mbuf.get(), received, length);
  if (frame::answer_arp(mbuf.get(), length, our_ip, kOurMac)) {
    const auto mac = frame::arp_sender_mac(mbuf.get(), length, our_ip);
    FUZZ_CHECK(mac && *mac == kOurMac);
  }
  std::memcpy(mbuf.get(), received, length);
  if (const size_t answer =
          frame::answer_neighbor_solicitation(mbuf.get(), length, capacity, our_ip6, kOurMac)) {
    FUZZ_CHECK(answer <= capacity);
    const auto mac = frame::neighbor_advertisement_mac(mbuf.get(), answer, our_ip6);
    FUZZ_CHECK(mac && *mac == kOurMac);
    // Its ICMPv6 checksum holds (RFC 4443 2.3): the sum over the pseudo-header and the message,
    // checksum included, is all ones.
    const uint8_t* ip6 = mbuf.get() + frame::ethernet_bytes;
    const size_t icmp_length = answer - frame::ethernet_bytes - frame::ipv6_bytes;
    uint32_t sum = frame::add_words(0, ip6 + 8, 32) + static_cast<uint32_t>(icmp_length) + 58;
    sum = frame::add_words(sum, ip6 + frame::ipv6_bytes, icmp_length);
    FUZZ_CHECK(frame::fold(sum) == 0xffff);
  }
  return 0;
}
