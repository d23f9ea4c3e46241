// Bytes as lowercase hex, for comparing wire layouts with the bytes written out in a test.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>

namespace xttcp::udp::test {

inline std::string hex(const unsigned char* bytes, std::size_t length) {
  std::string text;
  char digits[3];
  for (std::size_t i = 0; i < length; ++i) {
    std::snprintf(digits, sizeof digits, "%02x", bytes[i]);
    text += digits;
  }
  return text;
}

}  // namespace xttcp::udp::test
