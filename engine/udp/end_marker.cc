#include "engine/udp/end_marker.hh"

#include <array>

namespace xttcp::udp {
namespace {

constexpr std::size_t sent_offset = header_size;  // unity builds: names unlike datagram_header.cc

void store_sent_be64(unsigned char* out, uint64_t value) {
  for (int i = 7; i >= 0; --i, value >>= 8) out[i] = static_cast<unsigned char>(value);
}

uint64_t load_sent_be64(const unsigned char* in) {
  uint64_t value = 0;
  for (int i = 0; i < 8; ++i) value = (value << 8) | in[i];
  return value;
}

constexpr std::array<uint64_t, end_marker_repeats> delays_ms{0, 2, 10, 30, 100};

}  // namespace

void encode_end_marker(const EndMarker& marker, unsigned char* out) {
  encode(DatagramHeader{marker.flow_id, static_cast<uint32_t>(marker.sent), marker.send_time_ns,
                        marker.token},
         out);
  out[header_flags_offset] =
      static_cast<unsigned char>(flag_end_of_flow | (marker.compat_data ? flag_compat_data : 0));
  store_sent_be64(out + sent_offset, marker.sent);
}

bool decode_end_marker(const unsigned char* in, std::size_t length, EndMarker& out) {
  DatagramHeader header;
  if (length < end_marker_size || !decode(in, length, header) || !has_end_flag(in)) return false;
  out.flow_id = header.flow_id;
  out.sent = load_sent_be64(in + sent_offset);
  out.compat_data = (in[header_flags_offset] & flag_compat_data) != 0;
  out.send_time_ns = header.send_time_ns;
  out.token = header.token;
  return true;
}

uint64_t end_marker_delay_ns(uint32_t index) {
  const uint64_t ms = index < delays_ms.size() ? delays_ms[index] : delays_ms.back();
  return ms * 1'000'000;
}

uint64_t EndMarkerSchedule::wait_ns(uint64_t now_ns) const {
  if (!begun_ || finished()) return 0;
  const uint64_t at = start_ns_ + end_marker_delay_ns(sent_);
  return now_ns >= at ? 0 : at - now_ns;
}

}  // namespace xttcp::udp
