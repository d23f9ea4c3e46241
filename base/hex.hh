// Bytes as lowercase hexadecimal text and back: how binary values (an RSS key, a one-port
// cookie) travel in JSON.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xttcp {

std::string hex_text(const std::uint8_t* bytes, std::size_t count);
inline std::string hex_text(const std::vector<std::uint8_t>& bytes) {
  return hex_text(bytes.data(), bytes.size());
}
// The value of one hex digit (either case), or -1.
int hex_digit(char c);
// The bytes `text` spells (an even number of digits, either case); nullopt if it is not hex.
std::optional<std::vector<std::uint8_t>> bytes_from_hex(std::string_view text);

}  // namespace xttcp
