// The header that native xttcp UDP puts at the start of every datagram, so the receiver can
// count loss, reordering and duplicates per flow and estimate jitter. NTttcp-compatible modes
// send raw payload without it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace xttcp::udp {

// Layout, network byte order (24 bytes):
//   offset  0  magic         u32  0x58545544 ("XTUD")
//   offset  4  version       u8   1
//   offset  5  flags         u8   0 in data datagrams (ignored by decode); count mode's end
//                                 markers set end_of_flow (engine/udp/end_marker.hh)
//   offset  6  token         u16  the sender's flow token (0: none), declared with its flows in
//                                 its hello (flow_admission.hh); an xttcp older than tokens
//                                 writes 0 here and ignores it
//   offset  8  flow_id       u32
//   offset 12  sequence      u32  numbered from 0 per flow, wraps at 2^32
//   offset 16  send_time_ns  u64  sender's clock; only differences matter (jitter)
// NTttcp's payload is all 'B' (0x42): its first four bytes 0x42424242 are not the magic, so a
// compat datagram never decodes as native.
inline constexpr uint32_t header_magic = 0x58545544;
inline constexpr uint8_t header_version = 1;
inline constexpr std::size_t header_size = 24;
inline constexpr std::size_t header_flags_offset = 5;

struct DatagramHeader {
  uint32_t flow_id = 0;
  uint32_t sequence = 0;
  uint64_t send_time_ns = 0;
  uint16_t token = 0;

  bool operator==(const DatagramHeader&) const = default;
};

// Writes exactly header_size bytes to `out` (magic, version and zero flags included).
void encode(const DatagramHeader& header, unsigned char* out);

// Reads a header from the first bytes of a datagram of `length` bytes. Returns false, leaving
// `out` untouched, when the datagram is shorter than header_size or the magic or version differ.
bool decode(const unsigned char* in, std::size_t length, DatagramHeader& out);

// Hot path: rewrites only sequence and send_time_ns of a header that encode() already wrote,
// so a sender encodes its template once per flow and stamps each datagram.
void stamp(unsigned char* encoded, uint32_t sequence, uint64_t send_time_ns);

}  // namespace xttcp::udp
