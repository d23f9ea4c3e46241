#include "engine/iperf2/client_header.hh"

#include <cstring>

#include "engine/iperf2/wire_words.hh"

namespace xttcp::iperf2 {

namespace {

// Word offsets: client_hdr_v1 (flags, numThreads, mPort, mBufLen, mWinBand, mAmount), then
// client_hdrext (type, length, upper|lower flags, version_u, version_l, reserved|tos, lRate,
// uRate, TCPWritePrefetch).
constexpr std::size_t at_flags = 0, at_threads = 4, at_port = 8, at_buffer = 12, at_window = 16,
                      at_amount = 20, at_version_u = 36, at_version_l = 40, at_rate_l = 48,
                      at_rate_u = 52;

}  // namespace

ClientHeader tcp_client_header(uint32_t threads, uint16_t port, uint32_t duration_s) {
  ClientHeader header;
  header.flags = flag_extend | flag_length | static_cast<uint32_t>(tcp_header_size << 1);
  header.threads = static_cast<int32_t>(threads);
  header.port = port;
  header.amount = -static_cast<int32_t>(duration_s * 100);
  return header;
}

void encode(const ClientHeader& h, unsigned char* out) {
  std::memset(out, 0, tcp_header_size);
  put32(out + at_flags, h.flags);
  put32(out + at_threads, static_cast<uint32_t>(h.threads));
  put32(out + at_port, static_cast<uint32_t>(h.port));
  put32(out + at_buffer, static_cast<uint32_t>(h.buffer_len));
  put32(out + at_window, static_cast<uint32_t>(h.window));
  put32(out + at_amount, static_cast<uint32_t>(h.amount));
  put32(out + at_version_u, h.version_u);
  put32(out + at_version_l, h.version_l);
  put32(out + at_rate_l, h.rate_lower);
  put32(out + at_rate_u, h.rate_upper);
}

void encode_ack(unsigned char* out) {
  std::memset(out, 0, ack_size);
  put32(out, 2);  // CLIENTHDRACK
  put32(out + 4, static_cast<uint32_t>(ack_size));
  put32(out + 12, version_upper);
  put32(out + 16, version_lower);
}

std::size_t declared_length(uint32_t flags) {
  return (flags & flag_length) != 0 ? (flags & length_mask) >> 1 : 0;
}

std::optional<ClientHeader> decode(const unsigned char* in, std::size_t length) {
  if (length < 24) return std::nullopt;
  ClientHeader h;
  h.flags = get32(in + at_flags);
  if ((h.flags & (flag_version1 | flag_extend)) == 0) return std::nullopt;
  h.threads = static_cast<int32_t>(get32(in + at_threads));
  h.port = static_cast<int32_t>(get32(in + at_port));
  h.buffer_len = static_cast<int32_t>(get32(in + at_buffer));
  h.window = static_cast<int32_t>(get32(in + at_window));
  h.amount = static_cast<int32_t>(get32(in + at_amount));
  if ((h.flags & flag_extend) != 0) {
    if (length < tcp_header_size) return std::nullopt;
    h.version_u = get32(in + at_version_u);
    h.version_l = get32(in + at_version_l);
    h.rate_lower = get32(in + at_rate_l);
    h.rate_upper = get32(in + at_rate_u);
  } else {
    h.version_u = h.version_l = 0;
  }
  return h;
}

}  // namespace xttcp::iperf2
