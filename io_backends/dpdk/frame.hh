// Ethernet/IPv4/UDP and Ethernet/IPv6/UDP frames as the dpdk backend sends and parses them, and
// the neighbour resolution around them (ARP for IPv4, ND for IPv6): plain byte layouts and
// checksums, no DPDK types, so they are unit-tested anywhere (tests/unit/dpdk).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.hh"

namespace xttcp::frame {

using MacAddress = std::array<uint8_t, 6>;
using Ipv6Address = std::array<uint8_t, 16>;  // network byte order
inline constexpr MacAddress broadcast_mac{0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

inline constexpr std::size_t ethernet_bytes = 14;
inline constexpr std::size_t ipv4_bytes = 20;
inline constexpr std::size_t udp_bytes = 8;
inline constexpr std::size_t ipv6_bytes = 40;
inline constexpr std::size_t headers_bytes = ethernet_bytes + ipv4_bytes + udp_bytes;   // 42
inline constexpr std::size_t headers6_bytes = ethernet_bytes + ipv6_bytes + udp_bytes;  // 62
inline constexpr std::size_t min_frame_bytes = 60;  // 64 on the wire with the FCS
// Per frame on the wire beyond its bytes: the FCS (L2), and preamble + inter-frame gap (L1).
inline constexpr std::size_t fcs_bytes = 4;
inline constexpr std::size_t preamble_and_gap_bytes = 20;
inline constexpr uint16_t ether_ipv4 = 0x0800;
inline constexpr uint16_t ether_arp = 0x0806;
inline constexpr uint16_t ether_ipv6 = 0x86dd;

// Ethernet + IP + UDP header bytes, and where the UDP header starts.
constexpr std::size_t headers_size(bool ipv6) { return ipv6 ? headers6_bytes : headers_bytes; }
constexpr std::size_t udp_offset(bool ipv6) {
  return ethernet_bytes + (ipv6 ? ipv6_bytes : ipv4_bytes);
}

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
  bool ipv6 = false;
  uint32_t source_ip = 0;                       // host byte order (IPv4)
  uint32_t destination_ip = 0;                  // host byte order (IPv4)
  Ipv6Address source_ip6{}, destination_ip6{};  // IPv6
  uint16_t source_port = 0;
  uint16_t destination_port = 0;
};

// One frame: Ethernet + IPv4 (DF, TTL 64, header checksum set) or IPv6 (hop limit 64) + UDP +
// `payload` bytes of `fill`, padded with zeros to the 60-byte minimum. The UDP checksum is left 0.
std::vector<uint8_t> build_udp_frame(const UdpEndpoints& endpoints, uint32_t payload, uint8_t fill);

// The UDP checksum of a frame built above, IPv4 or IPv6 by its EtherType (pseudo-header, UDP
// header with checksum 0, payload). 0 comes out as 0xffff (RFC 768: 0 means "no checksum").
uint16_t udp_checksum(const uint8_t* frame);
// Unfolded sum of the same words, for incremental updates of fields that change per frame.
uint32_t udp_checksum_sum(const uint8_t* frame);

// Offsets of the fields a sender rewrites per frame (IPv4; IPv6 adds 20: udp_offset()).
inline constexpr std::size_t udp_source_port_offset = ethernet_bytes + ipv4_bytes;
inline constexpr std::size_t udp_checksum_offset = ethernet_bytes + ipv4_bytes + 6;
inline constexpr std::size_t payload_offset = headers_bytes;

// A received frame's UDP datagram, when it is IPv4/UDP (not a fragment) or IPv6/UDP (UDP the
// first next header), no VLAN, lengths agree.
struct UdpView {
  bool ipv6 = false;
  uint32_t source_ip = 0, destination_ip = 0;  // host byte order (IPv4)
  const uint8_t* destination_ip6 = nullptr;    // 16 bytes inside the frame (IPv6)
  uint16_t source_port = 0, destination_port = 0;
  const uint8_t* payload = nullptr;
  uint32_t payload_length = 0;
};
std::optional<UdpView> parse_udp(const uint8_t* frame, std::size_t length);

// --rr (docs/rr.md): a received request, IPv4 (20-byte header) or IPv6 UDP, rewritten in place
// into its response: MACs, addresses and ports swapped, the payload made `response_payload`
// bytes whose first 8 are the request's (its send time; bytes past the request's are zeros),
// lengths, the IPv4 header checksum and the UDP checksum set, padded to the 60-byte minimum.
// Returns the response frame's length (at most `capacity`), or 0 (untouched) when the frame is
// not such a request or the response would not fit.
std::size_t turn_into_response(uint8_t* frame, std::size_t length, std::size_t capacity,
                               uint32_t response_payload);

// An ARP request asking for `ip` (host byte order): rewrites it in place into the reply from
// `mac` and returns true; anything else is left alone and gives false.
bool answer_arp(uint8_t* frame, std::size_t length, uint32_t ip, const MacAddress& mac);

// ARP request from `mac`/`source_ip` for `target_ip` (host byte order), broadcast, padded to 60.
std::vector<uint8_t> build_arp_request(const MacAddress& mac, uint32_t source_ip,
                                       uint32_t target_ip);
// The MAC in an ARP reply (or request: a peer asking for us also tells its MAC) sent by
// `target_ip`; nothing for any other frame.
std::optional<MacAddress> arp_sender_mac(const uint8_t* frame, std::size_t length,
                                         uint32_t target_ip);

// IPv6 neighbour discovery (RFC 4861). The solicited-node multicast MAC of `ip`:
// 33:33:ff + its last three bytes.
MacAddress solicited_node_mac(const Ipv6Address& ip);
// Neighbour solicitation from `mac`/`source_ip` for `target`, to its solicited-node group, with
// the source link-layer address option (86 bytes).
std::vector<uint8_t> build_neighbor_solicitation(const MacAddress& mac,
                                                 const Ipv6Address& source_ip,
                                                 const Ipv6Address& target);
// The MAC a neighbour advertisement for `target` carries (its target link-layer address option,
// else its Ethernet source); nothing for any other frame.
std::optional<MacAddress> neighbor_advertisement_mac(const uint8_t* frame, std::size_t length,
                                                     const Ipv6Address& target);
// A neighbour solicitation for `ip` (hop limit 255, code 0, not from the unspecified address):
// rewritten in place into the solicited advertisement from `mac` (with the target link-layer
// option), returning its length (at most `capacity`); 0 and untouched for anything else.
std::size_t answer_neighbor_solicitation(uint8_t* frame, std::size_t length, std::size_t capacity,
                                         const Ipv6Address& ip, const MacAddress& mac);
// ICMPv6 checksum of the message after the IPv6 header at `ip6` (its checksum field taken as 0).
uint16_t icmpv6_checksum(const uint8_t* ip6);

}  // namespace xttcp::frame
