// Toeplitz hash and indirection-table lookup (see rss_hash.hh).
#include "topology/nic/rss_hash.hh"

namespace xttcp {

const std::array<std::uint8_t, 40> default_rss_key = {
    0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
    0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
    0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa};

namespace {

std::uint8_t key_byte(std::span<const std::uint8_t> key, std::size_t index) {
  return index < key.size() ? key[index] : 0;
}

}  // namespace

std::uint32_t toeplitz_hash(std::span<const std::uint8_t> key,
                            std::span<const std::uint8_t> input) {
  // `window` holds the 32 key bits that line up with the current input bit; each step shifts in
  // the next key bit from the byte after the window.
  std::uint32_t window = (std::uint32_t{key_byte(key, 0)} << 24) |
                         (std::uint32_t{key_byte(key, 1)} << 16) |
                         (std::uint32_t{key_byte(key, 2)} << 8) | key_byte(key, 3);
  std::uint32_t result = 0;
  for (std::size_t byte = 0; byte < input.size(); ++byte) {
    const std::uint8_t next = key_byte(key, byte + 4);
    for (int bit = 7; bit >= 0; --bit) {
      if ((input[byte] >> bit) & 1U) result ^= window;
      window = (window << 1) | ((next >> bit) & 1U);
    }
  }
  return result;
}

std::vector<std::uint8_t> rss_input(const FlowTuple& flow, bool with_ports) {
  const std::size_t address_bytes = flow.ipv6 ? 16 : 4;
  std::vector<std::uint8_t> input;
  input.insert(input.end(), flow.source.begin(), flow.source.begin() + address_bytes);
  input.insert(input.end(), flow.destination.begin(), flow.destination.begin() + address_bytes);
  if (with_ports) {
    for (std::uint16_t port : {flow.source_port, flow.destination_port}) {
      input.push_back(static_cast<std::uint8_t>(port >> 8));
      input.push_back(static_cast<std::uint8_t>(port & 0xff));
    }
  }
  return input;
}

std::uint32_t rss_hash(std::span<const std::uint8_t> key, const FlowTuple& flow, bool with_ports) {
  return toeplitz_hash(key, rss_input(flow, with_ports));
}

int rss_queue(std::uint32_t hash, std::span<const std::uint32_t> indirection_table) {
  if (indirection_table.empty()) return -1;
  return static_cast<int>(indirection_table[hash % indirection_table.size()]);
}

}  // namespace xttcp
