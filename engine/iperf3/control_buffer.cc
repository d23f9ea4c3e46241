#include "engine/iperf3/control_buffer.hh"

#include "engine/iperf3/control_wire.hh"

namespace xttcp::iperf3 {

std::optional<std::string> ControlBuffer::take(std::size_t count) {
  if (bytes_.size() < count) return std::nullopt;
  std::string taken = bytes_.substr(0, count);
  bytes_.erase(0, count);
  return taken;
}

Expected<std::optional<std::string>> ControlBuffer::take_message(uint32_t max_bytes,
                                                                 std::string_view what) {
  if (bytes_.size() < length_size) return std::optional<std::string>{};
  auto length =
      read_message_length(std::span<const unsigned char, length_size>(
                              reinterpret_cast<const unsigned char*>(bytes_.data()), length_size),
                          max_bytes, what);
  if (!length) return length.error();
  if (bytes_.size() < length_size + *length) return std::optional<std::string>{};
  std::string text = bytes_.substr(length_size, *length);
  bytes_.erase(0, length_size + *length);
  return std::optional<std::string>{std::move(text)};
}

}  // namespace xttcp::iperf3
