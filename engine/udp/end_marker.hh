// Count mode (-n) over UDP: after its N datagrams of data, a sender flow sends a few end markers
// so the receiver knows the flow is done and how many datagrams it sent; the receiver ends when
// every flow's marker arrived, and loss = sent - received even for datagrams lost at the tail.
//
// An end marker is a native header (datagram_header.hh) with the end-of-flow flag, followed by
// the flow's 64-bit count of data datagrams (network byte order), 32 bytes in all:
//   offset  0  header        flags = end_of_flow | compat_data (the data carried no header),
//                            sequence = low 32 bits of the count, send time
//   offset 24  sent          u64  data datagrams the flow sent
// Markers are sent only in count mode, so time-mode traffic between xttcp peers is unchanged.
// NTttcp's own UDP has no header: a real NTttcp receiver sees each marker as one more (short)
// datagram, end_marker_repeats of them per flow, and counts them as received buffers.
// Markers are never data: neither end counts them in bytes, buffers or datagrams.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/udp/datagram_header.hh"

namespace xttcp::udp {

inline constexpr uint8_t flag_end_of_flow = 0x01;
inline constexpr uint8_t flag_compat_data = 0x02;
inline constexpr std::size_t end_marker_size = header_size + 8;

struct EndMarker {
  uint32_t flow_id = 0;
  uint64_t sent = 0;         // data datagrams the flow sent (N)
  bool compat_data = false;  // the flow's data had no native header (NTttcp's payload)
  uint64_t send_time_ns = 0;
  uint16_t token = 0;  // the flow's token, as in its data (datagram_header.hh)

  bool operator==(const EndMarker&) const = default;
};

// Writes exactly end_marker_size bytes to `out`.
void encode_end_marker(const EndMarker& marker, unsigned char* out);

// Reads an end marker: false, leaving `out` untouched, when the datagram is shorter than
// end_marker_size, is not a native header, or lacks the end-of-flow flag.
bool decode_end_marker(const unsigned char* in, std::size_t length, EndMarker& out);

// Hot path, for a datagram that decode() accepted: whether it is an end marker.
inline bool has_end_flag(const unsigned char* decoded) {
  return (decoded[header_flags_offset] & flag_end_of_flow) != 0;
}

// Markers per flow, and when each leaves after the flow's last data datagram: spread out, so a
// lossy path or a receiver whose socket buffer is full for a moment still sees one.
inline constexpr uint32_t end_marker_repeats = 5;
uint64_t end_marker_delay_ns(uint32_t index);  // 0, 2, 10, 30, 100 ms

// One sender flow's markers: begin() once its data is done, then send one whenever due().
class EndMarkerSchedule {
 public:
  void begin(uint64_t now_ns) {
    begun_ = true;
    start_ns_ = now_ns;
  }
  bool begun() const { return begun_; }
  bool finished() const { return sent_ >= end_marker_repeats; }
  bool due(uint64_t now_ns) const {
    return begun_ && !finished() && now_ns >= start_ns_ + end_marker_delay_ns(sent_);
  }
  // How long until the next marker is due (0: now); 0 when not begun or finished.
  uint64_t wait_ns(uint64_t now_ns) const;
  void marker_sent() { ++sent_; }
  void finish_now() { sent_ = end_marker_repeats; }  // a send failed: no more markers
  uint32_t markers_sent() const { return sent_; }

 private:
  bool begun_ = false;
  uint64_t start_ns_ = 0;
  uint32_t sent_ = 0;
};

}  // namespace xttcp::udp
