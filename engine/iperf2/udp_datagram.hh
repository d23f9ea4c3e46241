// iperf 2's UDP on the wire (docs/iperf2.md), learned from iperf 2's public source
// (include/payloads.h: UDP_datagram, client_udp_testhdr, server_hdr; the server report's reading
// in its reporter) and checked against the datagrams Debian's iperf 2.1.8 sends on loopback
// (tests/unit/iperf2/data/udp_*). Network byte order throughout.
//
// Every datagram starts with a 16-byte head: sequence low 32 bits, send time (seconds,
// microseconds), sequence high 32 bits. A client numbers its datagrams from 1 and puts its
// client header (client_header.hh, flags udp_header_flags) after the head of every one. When
// its time is up it sends datagrams of negative sequence (the FIN: -(last + 1)) until the
// server answers with a report datagram: the head, then server_hdr (the server's bytes, stop
// time, lost, out-of-order and datagram counts, and jitter).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "engine/iperf2/client_header.hh"

namespace xttcp::iperf2 {

inline constexpr std::size_t udp_head_size = 16;
// Head + client_hdr_v1 + client_hdrext: the length the flags declare.
inline constexpr std::size_t udp_header_size = udp_head_size + tcp_header_size;
// 0x48010098: HEADER_EXTEND, HEADER_SEQNO64B, the length bit, 76 << 1 (2.1.8 sets no UDP bit).
inline constexpr uint32_t udp_header_flags =
    flag_extend | flag_seqno64 | flag_length | static_cast<uint32_t>(udp_header_size << 1);

struct UdpHead {
  int64_t sequence = 0;  // from 1; negative: the FIN
  uint32_t tv_sec = 0;
  uint32_t tv_usec = 0;

  bool operator==(const UdpHead&) const = default;
};

// Writes udp_head_size bytes.
void encode_head(const UdpHead& head, unsigned char* out);
// False when the datagram is shorter than the head.
bool decode_head(const unsigned char* in, std::size_t length, UdpHead& out);

// The header a 2.1.8 client puts after each head: `threads` streams of `datagram` bytes
// (0: -l not given) to `port` for `duration_s`, at `rate_bps` per stream.
ClientHeader udp_client_header(uint32_t threads, uint16_t port, uint32_t duration_s,
                               uint32_t datagram, uint64_t rate_bps);
// Writes udp_header_size bytes: a zero head (stamped per datagram), then `header`.
void encode_udp_header(const ClientHeader& header, unsigned char* out);

// What a server reports of one stream when its FIN arrives.
struct ServerReport {
  uint64_t bytes = 0;     // every datagram's payload, the FIN's included
  uint32_t stop_sec = 0;  // the stream's time at the server: first datagram to the FIN
  uint32_t stop_usec = 0;
  uint64_t lost = 0;  // datagrams - received
  uint64_t out_of_order = 0;
  uint64_t datagrams = 0;  // the FIN's sequence, negated: data + FIN
  uint32_t jitter_sec = 0;
  uint32_t jitter_usec = 0;

  bool operator==(const ServerReport&) const = default;
};

// Head + server_hdr_v1 (40) + server_hdr_extension (60, zero: its flag is not set) +
// server_hdr_extension2 (12): 128 bytes, as 2.1.8's server sends.
inline constexpr std::size_t server_report_size = 128;
// Head + server_hdr_v1: what a report must hold at least.
inline constexpr std::size_t server_report_min_size = udp_head_size + 40;
// 0x88000000: HEADER_VERSION1 and HEADER_SEQNO64B (the counts' upper words in extension2).
inline constexpr uint32_t server_report_flags = flag_version1 | flag_seqno64;

// Writes server_report_size bytes (head zero, as 2.1.8's).
void encode_server_report(const ServerReport& report, unsigned char* out);
// nullopt when too short or without HEADER_VERSION1.
std::optional<ServerReport> decode_server_report(const unsigned char* in, std::size_t length);

}  // namespace xttcp::iperf2
