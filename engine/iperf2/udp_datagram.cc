#include "engine/iperf2/udp_datagram.hh"

#include <cstring>

#include "engine/iperf2/wire_words.hh"

namespace xttcp::iperf2 {

namespace {

// server_hdr after the head: v1 (flags, total_len1/2, stop_sec/usec, error_cnt, outorder_cnt,
// datagrams, jitter1/2), the extension (15 words), extension2 (the counts' upper words).
constexpr std::size_t report_at_flags = 16, report_at_bytes_hi = 20, report_at_bytes_lo = 24,
                      report_at_stop_sec = 28, report_at_stop_usec = 32, report_at_lost = 36,
                      report_at_out_of_order = 40, report_at_datagrams = 44,
                      report_at_jitter_sec = 48, report_at_jitter_usec = 52,
                      report_at_lost_hi = 116, report_at_out_of_order_hi = 120,
                      report_at_datagrams_hi = 124;

}  // namespace

void encode_head(const UdpHead& head, unsigned char* out) {
  const auto sequence = static_cast<uint64_t>(head.sequence);
  put32(out, static_cast<uint32_t>(sequence));
  put32(out + 4, head.tv_sec);
  put32(out + 8, head.tv_usec);
  put32(out + 12, static_cast<uint32_t>(sequence >> 32));
}

bool decode_head(const unsigned char* in, std::size_t length, UdpHead& out) {
  if (length < udp_head_size) return false;
  out.sequence = static_cast<int64_t>(uint64_t{get32(in + 12)} << 32 | get32(in));
  out.tv_sec = get32(in + 4);
  out.tv_usec = get32(in + 8);
  return true;
}

ClientHeader udp_client_header(uint32_t threads, uint16_t port, uint32_t duration_s,
                               uint32_t datagram, uint64_t rate_bps) {
  ClientHeader header = tcp_client_header(threads, port, duration_s);
  header.flags = udp_header_flags;
  header.buffer_len = static_cast<int32_t>(datagram);
  header.rate_lower = static_cast<uint32_t>(rate_bps);
  header.rate_upper = static_cast<uint32_t>(rate_bps >> 32);
  return header;
}

void encode_udp_header(const ClientHeader& header, unsigned char* out) {
  std::memset(out, 0, udp_head_size);
  encode(header, out + udp_head_size);
}

void encode_server_report(const ServerReport& r, unsigned char* out) {
  std::memset(out, 0, server_report_size);
  put32(out + report_at_flags, server_report_flags);
  put32(out + report_at_bytes_hi, static_cast<uint32_t>(r.bytes >> 32));
  put32(out + report_at_bytes_lo, static_cast<uint32_t>(r.bytes));
  put32(out + report_at_stop_sec, r.stop_sec);
  put32(out + report_at_stop_usec, r.stop_usec);
  put32(out + report_at_lost, static_cast<uint32_t>(r.lost));
  put32(out + report_at_out_of_order, static_cast<uint32_t>(r.out_of_order));
  put32(out + report_at_datagrams, static_cast<uint32_t>(r.datagrams));
  put32(out + report_at_jitter_sec, r.jitter_sec);
  put32(out + report_at_jitter_usec, r.jitter_usec);
  put32(out + report_at_lost_hi, static_cast<uint32_t>(r.lost >> 32));
  put32(out + report_at_out_of_order_hi, static_cast<uint32_t>(r.out_of_order >> 32));
  put32(out + report_at_datagrams_hi, static_cast<uint32_t>(r.datagrams >> 32));
}

std::optional<ServerReport> decode_server_report(const unsigned char* in, std::size_t length) {
  if (length < server_report_min_size) return std::nullopt;
  const uint32_t flags = get32(in + report_at_flags);
  if ((flags & flag_version1) == 0) return std::nullopt;
  ServerReport r;
  r.bytes = uint64_t{get32(in + report_at_bytes_hi)} << 32 | get32(in + report_at_bytes_lo);
  r.stop_sec = get32(in + report_at_stop_sec);
  r.stop_usec = get32(in + report_at_stop_usec);
  r.lost = get32(in + report_at_lost);
  r.out_of_order = get32(in + report_at_out_of_order);
  r.datagrams = get32(in + report_at_datagrams);
  r.jitter_sec = get32(in + report_at_jitter_sec);
  r.jitter_usec = get32(in + report_at_jitter_usec);
  if ((flags & flag_seqno64) != 0 && length >= server_report_size) {
    r.lost |= uint64_t{get32(in + report_at_lost_hi)} << 32;
    r.out_of_order |= uint64_t{get32(in + report_at_out_of_order_hi)} << 32;
    r.datagrams |= uint64_t{get32(in + report_at_datagrams_hi)} << 32;
  }
  return r;
}

}  // namespace xttcp::iperf2
