// The header an iperf 2 client writes at the start of each TCP stream (and, for UDP, after each
// datagram's id and timestamp), learned from iperf 2's public source (include/payloads.h:
// client_hdr_v1 and client_hdrext) and checked against the bytes Debian's iperf 2.1.8 sends
// on loopback (tests/unit/iperf2/data/). An iperf 2 server reads from it how many streams a
// test has (its [SUM] line) and how long it runs. docs/iperf2.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace xttcp::iperf2 {

// Flag bits of the first word (network byte order throughout).
inline constexpr uint32_t flag_version1 = 0x80000000;   // client_hdr_v1 only (-r / -d)
inline constexpr uint32_t flag_extend = 0x40000000;     // client_hdrext follows
inline constexpr uint32_t flag_udp_tests = 0x20000000;  // a UDP test
inline constexpr uint32_t flag_seqno64 = 0x08000000;    // UDP: 64-bit sequence numbers
inline constexpr uint32_t flag_length = 0x00010000;     // the header's length is in bits 1-8
inline constexpr uint32_t length_mask = 0x000001FE;     // length << 1 (bit 0 belongs to v1)

// The 2.1.8 client's header: client_hdr_v1 (24 bytes) + client_hdrext (36 bytes).
inline constexpr std::size_t tcp_header_size = 60;
// Version words as 2.1.8 sends them: major << 16 | minor, patch << 16 | final-release (3).
inline constexpr uint32_t version_upper = 0x00020001;
inline constexpr uint32_t version_lower = 0x00080003;

struct ClientHeader {
  uint32_t flags = 0;
  int32_t threads = 1;     // numThreads: -P
  int32_t port = 5001;     // mPort
  int32_t buffer_len = 0;  // mBufLen (0: the server's own)
  int32_t window = 0;      // mWinBand: UDP rate in bits/s when not 0
  // mAmount: negative = the test's time in 10 ms units; positive = bytes (-n).
  int32_t amount = 0;
  uint32_t version_u = version_upper;
  uint32_t version_l = version_lower;
  uint32_t rate_lower = 0;  // lRate/uRate: -b in bits/s, 64 bits split
  uint32_t rate_upper = 0;

  bool operator==(const ClientHeader&) const = default;
};

// The acknowledgement a 2.1.8 server writes back on each TCP stream whose header it read
// (client_hdr_ack): type 2 (CLIENTHDRACK), length 28, flags 0, its version, two reserved words.
// A client reads it, or its close would reset the stream (unread data).
inline constexpr std::size_t ack_size = 28;
void encode_ack(unsigned char* out);

// The header a 2.1.8 client sends for a timed TCP test of `threads` streams to `port`.
ClientHeader tcp_client_header(uint32_t threads, uint16_t port, uint32_t duration_s);

// Writes tcp_header_size bytes to `out`.
void encode(const ClientHeader& header, unsigned char* out);

// Reads a header from the first `length` bytes of a stream: nullopt when they are too few or
// the flags say no header (a pre-2.0 client's data starts at once).
std::optional<ClientHeader> decode(const unsigned char* in, std::size_t length);

// The header's length as its flags give it (0: no length bit).
std::size_t declared_length(uint32_t flags);

}  // namespace xttcp::iperf2
