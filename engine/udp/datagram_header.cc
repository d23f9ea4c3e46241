#include "engine/udp/datagram_header.hh"

namespace xttcp::udp {
namespace {

constexpr std::size_t magic_offset = 0;
constexpr std::size_t version_offset = 4;
constexpr std::size_t flags_offset = header_flags_offset;
constexpr std::size_t token_offset = 6;
constexpr std::size_t flow_id_offset = 8;
constexpr std::size_t sequence_offset = 12;
constexpr std::size_t send_time_offset = 16;
static_assert(send_time_offset + 8 == header_size);

// Byte by byte, so alignment and host byte order never matter; compilers turn these into a
// single bswap + store.
void store_be32(unsigned char* out, uint32_t value) {
  for (int i = 3; i >= 0; --i, value >>= 8) out[i] = static_cast<unsigned char>(value);
}

void store_be64(unsigned char* out, uint64_t value) {
  for (int i = 7; i >= 0; --i, value >>= 8) out[i] = static_cast<unsigned char>(value);
}

uint32_t load_be32(const unsigned char* in) {
  uint32_t value = 0;
  for (int i = 0; i < 4; ++i) value = (value << 8) | in[i];
  return value;
}

uint64_t load_be64(const unsigned char* in) {
  uint64_t value = 0;
  for (int i = 0; i < 8; ++i) value = (value << 8) | in[i];
  return value;
}

}  // namespace

void encode(const DatagramHeader& header, unsigned char* out) {
  store_be32(out + magic_offset, header_magic);
  out[version_offset] = header_version;
  out[flags_offset] = 0;
  out[token_offset] = static_cast<unsigned char>(header.token >> 8);
  out[token_offset + 1] = static_cast<unsigned char>(header.token);
  store_be32(out + flow_id_offset, header.flow_id);
  stamp(out, header.sequence, header.send_time_ns);
}

bool decode(const unsigned char* in, std::size_t length, DatagramHeader& out) {
  if (in == nullptr || length < header_size) return false;
  if (load_be32(in + magic_offset) != header_magic) return false;
  if (in[version_offset] != header_version) return false;
  out.flow_id = load_be32(in + flow_id_offset);
  out.sequence = load_be32(in + sequence_offset);
  out.send_time_ns = load_be64(in + send_time_offset);
  out.token = static_cast<uint16_t>(in[token_offset] << 8 | in[token_offset + 1]);
  return true;
}

void stamp(unsigned char* encoded, uint32_t sequence, uint64_t send_time_ns) {
  store_be32(encoded + sequence_offset, sequence);
  store_be64(encoded + send_time_offset, send_time_ns);
}

}  // namespace xttcp::udp
