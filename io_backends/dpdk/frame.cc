#include "io_backends/dpdk/frame.hh"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "base/hex.hh"

namespace xttcp::frame {

namespace {

void put16(uint8_t* at, uint16_t value) {
  at[0] = static_cast<uint8_t>(value >> 8);
  at[1] = static_cast<uint8_t>(value);
}
void put32(uint8_t* at, uint32_t value) {
  put16(at, static_cast<uint16_t>(value >> 16));
  put16(at + 2, static_cast<uint16_t>(value));
}
uint16_t get16(const uint8_t* at) { return static_cast<uint16_t>(at[0] << 8 | at[1]); }
uint32_t get32(const uint8_t* at) { return uint32_t{get16(at)} << 16 | get16(at + 2); }

}  // namespace

Expected<MacAddress> parse_mac(const std::string& text) {
  MacAddress mac{};
  const auto bad = [&] {
    return fail("'" + text + "' is not a MAC address (expected six hex bytes: 02:00:00:00:00:01)");
  };
  if (text.size() != 17) return bad();
  for (std::size_t i = 0; i < 6; ++i) {
    const int high = hex_digit(text[i * 3]), low = hex_digit(text[i * 3 + 1]);
    if (high < 0 || low < 0) return bad();
    if (i < 5 && text[i * 3 + 2] != ':' && text[i * 3 + 2] != '-') return bad();
    mac[i] = static_cast<uint8_t>(high << 4 | low);
  }
  return mac;
}

std::string to_string(const MacAddress& mac) {
  return fmt::format("{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}", mac[0], mac[1], mac[2], mac[3],
                     mac[4], mac[5]);
}

uint32_t add_words(uint32_t sum, const uint8_t* data, std::size_t length) {
  std::size_t i = 0;
  for (; i + 1 < length; i += 2) sum += get16(data + i);
  if (i < length) sum += uint32_t{data[i]} << 8;
  return sum;
}

uint16_t fold(uint32_t sum) {
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(sum);
}

std::vector<uint8_t> build_udp_frame(const UdpEndpoints& e, uint32_t payload, uint8_t fill) {
  const std::size_t used = headers_size(e.ipv6) + payload;
  std::vector<uint8_t> frame(used < min_frame_bytes ? min_frame_bytes : used, 0);
  uint8_t* at = frame.data();
  std::memcpy(at, e.destination_mac.data(), 6);
  std::memcpy(at + 6, e.source_mac.data(), 6);
  uint8_t* ip = at + ethernet_bytes;
  if (e.ipv6) {
    put16(at + 12, ether_ipv6);
    ip[0] = 0x60;  // version 6, traffic class 0, flow label 0
    put16(ip + 4, static_cast<uint16_t>(udp_bytes + payload));
    ip[6] = 17;  // UDP
    ip[7] = 64;  // hop limit
    std::memcpy(ip + 8, e.source_ip6.data(), 16);
    std::memcpy(ip + 24, e.destination_ip6.data(), 16);
  } else {
    put16(at + 12, ether_ipv4);
    ip[0] = 0x45;  // version 4, 20-byte header
    put16(ip + 2, static_cast<uint16_t>(ipv4_bytes + udp_bytes + payload));
    put16(ip + 6, 0x4000);  // DF
    ip[8] = 64;
    ip[9] = 17;  // UDP
    put32(ip + 12, e.source_ip);
    put32(ip + 16, e.destination_ip);
    put16(ip + 10, static_cast<uint16_t>(~fold(add_words(0, ip, ipv4_bytes))));
  }
  uint8_t* udp = at + udp_offset(e.ipv6);
  put16(udp, e.source_port);
  put16(udp + 2, e.destination_port);
  put16(udp + 4, static_cast<uint16_t>(udp_bytes + payload));
  std::memset(udp + udp_bytes, fill, payload);
  return frame;
}

uint32_t udp_checksum_sum(const uint8_t* frame) {
  const bool ipv6 = get16(frame + 12) == ether_ipv6;
  const uint8_t* ip = frame + ethernet_bytes;
  const uint8_t* udp = frame + udp_offset(ipv6);
  const uint16_t udp_length = get16(udp + 4);
  // Pseudo-header: both addresses, the protocol and the UDP length (RFC 768, RFC 8200 8.1).
  uint32_t sum = ipv6 ? add_words(0, ip + 8, 32) : add_words(0, ip + 12, 8);
  sum += 17 + udp_length;
  sum = add_words(sum, udp, 6);  // ports and length; the checksum field counts as 0
  return add_words(sum, udp + udp_bytes, udp_length - udp_bytes);
}

uint16_t udp_checksum(const uint8_t* frame) {
  const auto sum = static_cast<uint16_t>(~fold(udp_checksum_sum(frame)));
  return sum == 0 ? 0xffff : sum;
}

std::optional<UdpView> parse_udp(const uint8_t* frame, std::size_t length) {
  if (length < headers_bytes) return std::nullopt;
  const uint16_t type = get16(frame + 12);
  const uint8_t* ip = frame + ethernet_bytes;
  const uint8_t* udp = nullptr;
  std::size_t room = 0;  // bytes the IP header says follow it
  UdpView view;
  if (type == ether_ipv4) {
    const std::size_t ihl = std::size_t{ip[0] & 0x0fu} * 4;
    if ((ip[0] >> 4) != 4 || ihl < ipv4_bytes || ip[9] != 17) return std::nullopt;
    if ((get16(ip + 6) & 0x3fff) != 0) return std::nullopt;  // a fragment (MF or an offset)
    const std::size_t total = get16(ip + 2);
    if (total < ihl + udp_bytes || ethernet_bytes + total > length) return std::nullopt;
    udp = ip + ihl;
    room = total - ihl;
    view.source_ip = get32(ip + 12);
    view.destination_ip = get32(ip + 16);
  } else if (type == ether_ipv6) {
    if (length < headers6_bytes || (ip[0] >> 4) != 6 || ip[6] != 17) return std::nullopt;
    room = get16(ip + 4);
    if (room < udp_bytes || ethernet_bytes + ipv6_bytes + room > length) return std::nullopt;
    udp = ip + ipv6_bytes;
    view.ipv6 = true;
    view.destination_ip6 = ip + 24;
  } else {
    return std::nullopt;
  }
  const std::size_t udp_length = get16(udp + 4);
  if (udp_length < udp_bytes || udp_length > room) return std::nullopt;
  view.source_port = get16(udp);
  view.destination_port = get16(udp + 2);
  view.payload = udp + udp_bytes;
  view.payload_length = static_cast<uint32_t>(udp_length - udp_bytes);
  return view;
}

std::size_t turn_into_response(uint8_t* frame, std::size_t length, std::size_t capacity,
                               uint32_t response_payload) {
  const auto view = parse_udp(frame, length);
  if (!view || (!view->ipv6 && (frame[ethernet_bytes] & 0x0fu) != 5)) return 0;
  const std::size_t used = headers_size(view->ipv6) + response_payload;
  const std::size_t total = used < min_frame_bytes ? min_frame_bytes : used;
  if (total > capacity || response_payload > 0xffff - udp_bytes - ipv4_bytes) return 0;
  uint8_t mac[6];
  std::memcpy(mac, frame, 6);
  std::memcpy(frame, frame + 6, 6);
  std::memcpy(frame + 6, mac, 6);
  uint8_t* ip = frame + ethernet_bytes;
  if (view->ipv6) {
    uint8_t address[16];
    std::memcpy(address, ip + 8, 16);
    std::memcpy(ip + 8, ip + 24, 16);
    std::memcpy(ip + 24, address, 16);
    put16(ip + 4, static_cast<uint16_t>(udp_bytes + response_payload));
    ip[7] = 64;
  } else {
    uint8_t address[4];
    std::memcpy(address, ip + 12, 4);
    std::memcpy(ip + 12, ip + 16, 4);
    std::memcpy(ip + 16, address, 4);
    put16(ip + 2, static_cast<uint16_t>(ipv4_bytes + udp_bytes + response_payload));
    ip[8] = 64;
    put16(ip + 10, 0);
    put16(ip + 10, static_cast<uint16_t>(~fold(add_words(0, ip, ipv4_bytes))));
  }
  uint8_t* udp = frame + udp_offset(view->ipv6);
  const uint16_t source_port = get16(udp);
  put16(udp, get16(udp + 2));
  put16(udp + 2, source_port);
  put16(udp + 4, static_cast<uint16_t>(udp_bytes + response_payload));
  const std::size_t kept = std::min<std::size_t>({view->payload_length, response_payload, 8});
  std::memset(udp + udp_bytes + kept, 0, total - (udp_offset(view->ipv6) + udp_bytes + kept));
  put16(udp + 6, udp_checksum(frame));
  return total;
}

bool answer_arp(uint8_t* frame, std::size_t length, uint32_t ip, const MacAddress& mac) {
  constexpr std::size_t arp_bytes = 28;
  if (length < ethernet_bytes + arp_bytes || get16(frame + 12) != ether_arp) return false;
  uint8_t* arp = frame + ethernet_bytes;
  // Ethernet/IPv4 request (opcode 1) for `ip`.
  if (get16(arp) != 1 || get16(arp + 2) != ether_ipv4 || arp[4] != 6 || arp[5] != 4 ||
      get16(arp + 6) != 1 || get32(arp + 24) != ip)
    return false;
  uint8_t sender_mac[6], sender_ip[4];
  std::memcpy(sender_mac, arp + 8, 6);
  std::memcpy(sender_ip, arp + 14, 4);
  put16(arp + 6, 2);  // reply
  std::memcpy(arp + 8, mac.data(), 6);
  put32(arp + 14, ip);
  std::memcpy(arp + 18, sender_mac, 6);
  std::memcpy(arp + 24, sender_ip, 4);
  std::memcpy(frame, sender_mac, 6);
  std::memcpy(frame + 6, mac.data(), 6);
  return true;
}

std::vector<uint8_t> build_arp_request(const MacAddress& mac, uint32_t source_ip,
                                       uint32_t target_ip) {
  std::vector<uint8_t> frame(min_frame_bytes, 0);
  uint8_t* at = frame.data();
  std::memcpy(at, broadcast_mac.data(), 6);
  std::memcpy(at + 6, mac.data(), 6);
  put16(at + 12, ether_arp);
  uint8_t* arp = at + ethernet_bytes;
  put16(arp, 1);  // Ethernet
  put16(arp + 2, ether_ipv4);
  arp[4] = 6;
  arp[5] = 4;
  put16(arp + 6, 1);  // request
  std::memcpy(arp + 8, mac.data(), 6);
  put32(arp + 14, source_ip);
  put32(arp + 24, target_ip);  // target MAC (18..23) stays zero
  return frame;
}

std::optional<MacAddress> arp_sender_mac(const uint8_t* frame, std::size_t length,
                                         uint32_t target_ip) {
  if (length < ethernet_bytes + 28 || get16(frame + 12) != ether_arp) return std::nullopt;
  const uint8_t* arp = frame + ethernet_bytes;
  if (get16(arp) != 1 || get16(arp + 2) != ether_ipv4 || arp[4] != 6 || arp[5] != 4 ||
      (get16(arp + 6) != 1 && get16(arp + 6) != 2) || get32(arp + 14) != target_ip)
    return std::nullopt;
  MacAddress mac;
  std::memcpy(mac.data(), arp + 8, 6);
  return mac;
}

namespace {

constexpr std::size_t icmpv6_offset = ethernet_bytes + ipv6_bytes;
constexpr uint8_t icmpv6_protocol = 58;
constexpr uint8_t neighbor_solicitation = 135;
constexpr uint8_t neighbor_advertisement = 136;
constexpr std::size_t nd_message_bytes = 24;  // type, code, sum, flags, target
constexpr std::size_t nd_option_bytes = 8;    // a link-layer address option

bool is_unspecified(const uint8_t* ip) {
  for (int i = 0; i < 16; ++i)
    if (ip[i] != 0) return false;
  return true;
}

// The link-layer address option of `type` (1 source, 2 target) among an ND message's options.
const uint8_t* find_link_option(const uint8_t* options, std::size_t length, uint8_t type) {
  while (length >= 8) {
    const std::size_t size = std::size_t{options[1]} * 8;
    if (size == 0 || size > length) return nullptr;
    if (options[0] == type && size >= 8) return options + 2;
    options += size;
    length -= size;
  }
  return nullptr;
}

}  // namespace

uint16_t icmpv6_checksum(const uint8_t* ip6) {
  const uint16_t length = get16(ip6 + 4);
  uint32_t sum = add_words(0, ip6 + 8, 32);
  sum += length + icmpv6_protocol;
  const uint8_t* icmp = ip6 + ipv6_bytes;
  sum = add_words(sum, icmp, 2);  // type and code; the checksum counts as 0
  sum = add_words(sum, icmp + 4, length - 4u);
  return static_cast<uint16_t>(~fold(sum));
}

MacAddress solicited_node_mac(const Ipv6Address& ip) {
  return {0x33, 0x33, 0xff, ip[13], ip[14], ip[15]};
}

std::vector<uint8_t> build_neighbor_solicitation(const MacAddress& mac,
                                                 const Ipv6Address& source_ip,
                                                 const Ipv6Address& target) {
  std::vector<uint8_t> frame(icmpv6_offset + nd_message_bytes + nd_option_bytes, 0);
  uint8_t* at = frame.data();
  const MacAddress group = solicited_node_mac(target);
  std::memcpy(at, group.data(), 6);
  std::memcpy(at + 6, mac.data(), 6);
  put16(at + 12, ether_ipv6);
  uint8_t* ip = at + ethernet_bytes;
  ip[0] = 0x60;
  put16(ip + 4, nd_message_bytes + nd_option_bytes);
  ip[6] = icmpv6_protocol;
  ip[7] = 255;  // RFC 4861: ND messages carry hop limit 255
  std::memcpy(ip + 8, source_ip.data(), 16);
  const uint8_t node[16] = {0xff, 0x02, 0, 0, 0,    0,          0,          0,
                            0,    0,    0, 1, 0xff, target[13], target[14], target[15]};
  std::memcpy(ip + 24, node, 16);
  uint8_t* icmp = at + icmpv6_offset;
  icmp[0] = neighbor_solicitation;
  std::memcpy(icmp + 8, target.data(), 16);
  icmp[24] = 1;  // source link-layer address
  icmp[25] = 1;  // 8 bytes
  std::memcpy(icmp + 26, mac.data(), 6);
  put16(icmp + 2, icmpv6_checksum(ip));
  return frame;
}

std::optional<MacAddress> neighbor_advertisement_mac(const uint8_t* frame, std::size_t length,
                                                     const Ipv6Address& target) {
  if (length < icmpv6_offset + nd_message_bytes || get16(frame + 12) != ether_ipv6)
    return std::nullopt;
  const uint8_t* ip = frame + ethernet_bytes;
  const std::size_t icmp_length = get16(ip + 4);
  const uint8_t* icmp = frame + icmpv6_offset;
  if (ip[6] != icmpv6_protocol || ip[7] != 255 || icmp_length < nd_message_bytes ||
      icmpv6_offset + icmp_length > length || icmp[0] != neighbor_advertisement || icmp[1] != 0 ||
      std::memcmp(icmp + 8, target.data(), 16) != 0)
    return std::nullopt;
  MacAddress mac;
  const uint8_t* option =
      find_link_option(icmp + nd_message_bytes, icmp_length - nd_message_bytes, 2);
  std::memcpy(mac.data(), option != nullptr ? option : frame + 6, 6);
  return mac;
}

std::size_t answer_neighbor_solicitation(uint8_t* frame, std::size_t length, std::size_t capacity,
                                         const Ipv6Address& ip_address, const MacAddress& mac) {
  if (length < icmpv6_offset + nd_message_bytes || get16(frame + 12) != ether_ipv6) return 0;
  uint8_t* ip = frame + ethernet_bytes;
  const std::size_t icmp_length = get16(ip + 4);
  uint8_t* icmp = frame + icmpv6_offset;
  if (ip[6] != icmpv6_protocol || ip[7] != 255 || icmp_length < nd_message_bytes ||
      icmpv6_offset + icmp_length > length || icmp[0] != neighbor_solicitation || icmp[1] != 0 ||
      std::memcmp(icmp + 8, ip_address.data(), 16) != 0)
    return 0;
  // Duplicate address detection (from ::) would need an answer to all-nodes; a peer never
  // resolves us that way.
  if (is_unspecified(ip + 8)) return 0;
  const std::size_t answer = icmpv6_offset + nd_message_bytes + nd_option_bytes;
  if (answer > capacity) return 0;
  uint8_t asker_mac[6];
  std::memcpy(asker_mac, frame + 6, 6);
  std::memcpy(frame, asker_mac, 6);
  std::memcpy(frame + 6, mac.data(), 6);
  std::memcpy(ip + 24, ip + 8, 16);  // to the asker
  std::memcpy(ip + 8, ip_address.data(), 16);
  put16(ip + 4, nd_message_bytes + nd_option_bytes);
  ip[0] = 0x60, ip[1] = 0, ip[2] = 0, ip[3] = 0;
  icmp[0] = neighbor_advertisement;
  icmp[1] = 0;
  put32(icmp + 4, 0x60000000);  // solicited, override
  icmp[24] = 2;                 // target link-layer address
  icmp[25] = 1;
  std::memcpy(icmp + 26, mac.data(), 6);
  put16(icmp + 2, icmpv6_checksum(ip));
  return answer;
}

}  // namespace xttcp::frame
