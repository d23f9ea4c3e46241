// The part of base/crypto.hh that needs no library.
#include "base/crypto.hh"

namespace xttcp::crypto {

bool equal_in_constant_time(std::span<const uint8_t> a, std::span<const uint8_t> b) {
  if (a.size() != b.size()) return false;  // sizes are public (a digest's, a cookie's)
  volatile uint8_t difference = 0;         // every byte is read, wherever the first difference
  for (size_t i = 0; i < a.size(); ++i) difference = difference | (a[i] ^ b[i]);
  return difference == 0;
}

}  // namespace xttcp::crypto
