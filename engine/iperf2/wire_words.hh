// iperf 2's wire is 32-bit words in network byte order: writing and reading one.
#pragma once

#include <cstdint>

namespace xttcp::iperf2 {

inline void put32(unsigned char* out, uint32_t value) {
  out[0] = static_cast<unsigned char>(value >> 24);
  out[1] = static_cast<unsigned char>(value >> 16);
  out[2] = static_cast<unsigned char>(value >> 8);
  out[3] = static_cast<unsigned char>(value);
}

inline uint32_t get32(const unsigned char* in) {
  return uint32_t{in[0]} << 24 | uint32_t{in[1]} << 16 | uint32_t{in[2]} << 8 | uint32_t{in[3]};
}

}  // namespace xttcp::iperf2
