// Ethernet/IPv4/UDP frames as the dpdk backend sends and parses them: plain byte layouts and
// checksums, no DPDK types, so they are unit-tested anywhere (tests/unit/dpdk).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/status.hh"

namespace xttcp::frame {

using MacAddress = std::array<uint8_t, 6>;
inline constexpr MacAddress broadcast_mac{0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

inline constexpr std::size_t ethernet_bytes = 14;
inline constexpr std::size_t ipv4_bytes = 20;
inline constexpr std::size_t udp_bytes = 8;
inline constexpr std::size_t headers_bytes = ethernet_bytes + ipv4_bytes + udp_bytes;  // 42
inline constexpr std::size_t min_frame_bytes = 60;  // 64 on the wire with the FCS
inline constexpr uint16_t ether_ipv4 = 0x0800;
inline constexpr uint16_t ether_arp = 0x0806;

// "02:00:00:00:00:01" (':' or '-'), case-insensitive.
Expected<MacAddress> parse_mac(const std::string& text);
std::string to_string(const MacAddress& mac);

// RFC 1071 one's-complement sum of `length` bytes taken as big-endian 16-bit words (an odd last
// byte is padded with zero), added to `sum`; fold() reduces it to 16 bits.
uint32_t add_words(uint32_t sum, const uint8_t* data, std::size_t length);
uint16_t fold(uint32_t sum);

struct UdpEndpoints {
  MacAddress source_mac{};
  MacAddress destination_mac = broadcast_mac;
  uint32_t source_ip = 0;       // host byte order
  uint32_t destination_ip = 0;  // host byte order
  uint16_t source_port = 0;
  uint16_t destination_port = 0;
};

// One frame: Ethernet + IPv4 (DF, TTL 64, header checksum set) + UDP + `payload` bytes of
// `fill`, padded with zeros to the 60-byte minimum. The UDP checksum is left 0.
std::vector<uint8_t> build_udp_frame(const UdpEndpoints& endpoints, uint32_t payload,
                                     uint8_t fill);

// The UDP checksum of a frame built above (pseudo-header, UDP header with checksum 0, payload).
// 0 comes out as 0xffff (RFC 768: 0 means "no checksum").
uint16_t udp_checksum(const uint8_t* frame);
// Unfolded sum of the same words, for incremental updates of fields that change per frame.
uint32_t udp_checksum_sum(const uint8_t* frame);

// Offsets of the fields a sender rewrites per frame.
inline constexpr std::size_t udp_source_port_offset = ethernet_bytes + ipv4_bytes;
inline constexpr std::size_t udp_checksum_offset = ethernet_bytes + ipv4_bytes + 6;
inline constexpr std::size_t payload_offset = headers_bytes;

// A received frame's UDP datagram, when it is IPv4/UDP (no VLAN, not a fragment, lengths agree).
struct UdpView {
  uint32_t source_ip = 0, destination_ip = 0;  // host byte order
  uint16_t source_port = 0, destination_port = 0;
  const uint8_t* payload = nullptr;
  uint32_t payload_length = 0;
};
std::optional<UdpView> parse_udp(const uint8_t* frame, std::size_t length);

// An ARP request asking for `ip` (host byte order): rewrites it in place into the reply from
// `mac` and returns true; anything else is left alone and gives false.
bool answer_arp(uint8_t* frame, std::size_t length, uint32_t ip, const MacAddress& mac);

}  // namespace xttcp::frame
