// The control connection's bytes as they come, in whatever pieces TCP delivers them: a session
// takes whole items (a state byte, a 37-byte cookie, a length-prefixed message) and keeps the
// rest for the next read. Bounded: it never holds more than the largest message it may read.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include "base/status.hh"

namespace xttcp::iperf3 {

class ControlBuffer {
 public:
  explicit ControlBuffer(std::size_t capacity) : capacity_(capacity) {}
  // False, and nothing kept, when the bytes would hold more than the capacity: a peer that
  // sends more than the protocol's next items can be is not read further.
  [[nodiscard]] bool append(std::span<const unsigned char> bytes) {
    if (bytes.size() > capacity_ - bytes_.size()) return false;
    bytes_.append(bytes.begin(), bytes.end());
    return true;
  }
  std::size_t size() const { return bytes_.size(); }

  // The next byte, left in place; nullopt before it came.
  std::optional<unsigned char> front() const {
    if (bytes_.empty()) return std::nullopt;
    return static_cast<unsigned char>(bytes_.front());
  }
  // The next `count` bytes, taken, once that many came.
  std::optional<std::string> take(std::size_t count);
  // The next length-prefixed message's text, taken, once it all came; an error (the length is
  // over `max_bytes`, or 0) is for good: the session ends. `what` names it in the error.
  Expected<std::optional<std::string>> take_message(uint32_t max_bytes, std::string_view what);

 private:
  std::size_t capacity_;
  std::string bytes_;
};

}  // namespace xttcp::iperf3
