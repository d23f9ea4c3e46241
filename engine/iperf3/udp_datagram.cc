#include "engine/iperf3/udp_datagram.hh"

#include <algorithm>

#include "engine/iperf2/wire_words.hh"

namespace xttcp::iperf3 {

namespace {

using iperf2::get32;
using iperf2::put32;

bool is_word(std::span<const unsigned char> datagram, uint32_t value) {
  if (datagram.size() != 4) return false;
  const uint32_t big = get32(datagram.data());
  const uint32_t little = uint32_t{datagram[3]} << 24 | uint32_t{datagram[2]} << 16 |
                          uint32_t{datagram[1]} << 8 | uint32_t{datagram[0]};
  return big == value || little == value;
}

}  // namespace

void encode_head(const UdpHead& head, bool wide, unsigned char* out) {
  put32(out, head.seconds);
  put32(out + 4, head.microseconds);
  if (wide) {
    put32(out + 8, static_cast<uint32_t>(head.sequence >> 32));
    put32(out + 12, static_cast<uint32_t>(head.sequence));
  } else {
    put32(out + 8, static_cast<uint32_t>(head.sequence));
  }
}

bool decode_head(const unsigned char* in, std::size_t length, bool wide, UdpHead& out) {
  if (length < udp_head_size(wide)) return false;
  out.seconds = get32(in);
  out.microseconds = get32(in + 4);
  out.sequence = wide ? uint64_t{get32(in + 8)} << 32 | get32(in + 12) : get32(in + 8);
  return true;
}

void stamp_heads(unsigned char* data, uint32_t datagram, uint32_t count, uint64_t first_sent,
                 uint64_t now_ns, bool wide) {
  UdpHead head;
  head.seconds = static_cast<uint32_t>(now_ns / 1'000'000'000);
  head.microseconds = static_cast<uint32_t>(now_ns % 1'000'000'000 / 1000);
  for (uint32_t i = 0; i < count; ++i) {
    head.sequence = first_sent + 1 + i;
    encode_head(head, wide, data + static_cast<std::size_t>(i) * datagram);
  }
}

bool is_udp_hello(std::span<const unsigned char> datagram) { return is_word(datagram, 0x39383736); }

bool is_udp_reply(std::span<const unsigned char> datagram) {
  return is_word(datagram, 0x36373839) || is_word(datagram, 987654321);
}

}  // namespace xttcp::iperf3
