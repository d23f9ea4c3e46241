// iperf3 3.12's UDP on the wire (tests/reference/iperf3-3.12/README.md 5): each stream's hello
// and its reply, and the head of every data datagram. Pure.
//
// A datagram's head, network byte order: the send time's seconds and microseconds (any clock:
// the receiver only takes differences), then the sequence number, from 1 per stream: 32 bits,
// or 64 with the client's "udp_counters_64bit". Every datagram is exactly the test's `len`
// bytes; the head's 12 or 16 bytes count as payload.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace xttcp::iperf3 {

inline constexpr std::size_t udp_head_size(bool wide) { return wide ? 16 : 12; }
// 3.12's default rate for a UDP stream: 1 Mibit/s.
inline constexpr uint64_t default_udp_rate_bps = 1048576;

struct UdpHead {
  uint32_t seconds = 0;
  uint32_t microseconds = 0;
  uint64_t sequence = 0;

  bool operator==(const UdpHead&) const = default;
};

// Writes udp_head_size(wide) bytes.
void encode_head(const UdpHead& head, bool wide, unsigned char* out);
// False when the datagram is shorter than the head.
bool decode_head(const unsigned char* in, std::size_t length, bool wide, UdpHead& out);
// Stamps the heads of `count` datagrams of `datagram` bytes laid back to back from `data`:
// sequences first_sent + 1 onwards (`first_sent`: datagrams the stream sent before), one send
// time (ns on any clock) for the batch.
void stamp_heads(unsigned char* data, uint32_t datagram, uint32_t count, uint64_t first_sent,
                 uint64_t now_ns, bool wide);

// The hello and its reply are 32-bit values that 3.12 writes in host order: x86's bytes, which
// every x86 iperf3 sends and expects.
inline constexpr std::array<unsigned char, 4> udp_hello{0x39, 0x38, 0x37, 0x36};
inline constexpr std::array<unsigned char, 4> udp_reply{0x36, 0x37, 0x38, 0x39};
// A client's hello: 3.12's server takes any datagram; this one wants the hello, in either byte
// order (a big-endian iperf3 sends it reversed).
bool is_udp_hello(std::span<const unsigned char> datagram);
// A server's reply, in either byte order, or 3.12's legacy 987654321.
bool is_udp_reply(std::span<const unsigned char> datagram);

}  // namespace xttcp::iperf3
