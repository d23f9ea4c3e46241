#include "io_backends/dpdk/frame.hh"

#include <cstring>

#include <fmt/format.h>

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

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

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
  const std::size_t used = headers_bytes + payload;
  std::vector<uint8_t> frame(used < min_frame_bytes ? min_frame_bytes : used, 0);
  uint8_t* at = frame.data();
  std::memcpy(at, e.destination_mac.data(), 6);
  std::memcpy(at + 6, e.source_mac.data(), 6);
  put16(at + 12, ether_ipv4);
  uint8_t* ip = at + ethernet_bytes;
  ip[0] = 0x45;  // version 4, 20-byte header
  put16(ip + 2, static_cast<uint16_t>(ipv4_bytes + udp_bytes + payload));
  put16(ip + 6, 0x4000);  // DF
  ip[8] = 64;
  ip[9] = 17;  // UDP
  put32(ip + 12, e.source_ip);
  put32(ip + 16, e.destination_ip);
  put16(ip + 10, static_cast<uint16_t>(~fold(add_words(0, ip, ipv4_bytes))));
  uint8_t* udp = ip + ipv4_bytes;
  put16(udp, e.source_port);
  put16(udp + 2, e.destination_port);
  put16(udp + 4, static_cast<uint16_t>(udp_bytes + payload));
  std::memset(udp + udp_bytes, fill, payload);
  return frame;
}

uint32_t udp_checksum_sum(const uint8_t* frame) {
  const uint8_t* ip = frame + ethernet_bytes;
  const uint8_t* udp = ip + ipv4_bytes;
  const uint16_t udp_length = get16(udp + 4);
  uint32_t sum = add_words(0, ip + 12, 8);  // source and destination addresses
  sum += 17 + udp_length;
  sum = add_words(sum, udp, 6);  // ports and length; the checksum field counts as 0
  return add_words(sum, udp + udp_bytes, udp_length - udp_bytes);
}

uint16_t udp_checksum(const uint8_t* frame) {
  const auto sum = static_cast<uint16_t>(~fold(udp_checksum_sum(frame)));
  return sum == 0 ? 0xffff : sum;
}

std::optional<UdpView> parse_udp(const uint8_t* frame, std::size_t length) {
  if (length < headers_bytes || get16(frame + 12) != ether_ipv4) return std::nullopt;
  const uint8_t* ip = frame + ethernet_bytes;
  const std::size_t ihl = std::size_t{ip[0] & 0x0fu} * 4;
  if ((ip[0] >> 4) != 4 || ihl < ipv4_bytes || ip[9] != 17) return std::nullopt;
  if ((get16(ip + 6) & 0x3fff) != 0) return std::nullopt;  // a fragment (MF or an offset)
  const std::size_t total = get16(ip + 2);
  if (total < ihl + udp_bytes || ethernet_bytes + total > length) return std::nullopt;
  const uint8_t* udp = ip + ihl;
  const std::size_t udp_length = get16(udp + 4);
  if (udp_length < udp_bytes || udp_length > total - ihl) return std::nullopt;
  UdpView view;
  view.source_ip = get32(ip + 12);
  view.destination_ip = get32(ip + 16);
  view.source_port = get16(udp);
  view.destination_port = get16(udp + 2);
  view.payload = udp + udp_bytes;
  view.payload_length = static_cast<uint32_t>(udp_length - udp_bytes);
  return view;
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

}  // namespace xttcp::frame
