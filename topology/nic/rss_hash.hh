// Receive-side scaling as a NIC computes it: the Toeplitz hash of a flow's addresses and ports
// under a secret key, and the RX queue the indirection table maps that hash to. Pure functions,
// so a sender can predict where its flows land on the receiver's queues.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace xttcp {

// Microsoft's default 40-byte RSS key (the one its verification suite uses; many drivers too).
extern const std::array<std::uint8_t, 40> default_rss_key;

// Toeplitz over `input` (bytes in network order): for each input bit set, from the most
// significant bit of input[0] on, XOR in the 32 key bits starting at that bit position. The key
// must hold at least input.size() + 4 bytes; bits past its end count as 0.
std::uint32_t toeplitz_hash(std::span<const std::uint8_t> key, std::span<const std::uint8_t> input);

// One flow as the receiving NIC sees it: addresses and ports in network byte order.
struct FlowTuple {
  bool ipv6 = false;
  std::array<std::uint8_t, 16> source{};  // IPv4 uses the first 4 bytes
  std::array<std::uint8_t, 16> destination{};
  std::uint16_t source_port = 0;  // host order
  std::uint16_t destination_port = 0;
};

// The RSS hash input as the NIC builds it: source address, destination address, then (when
// `with_ports`) source port and destination port.
std::vector<std::uint8_t> rss_input(const FlowTuple& flow, bool with_ports);

std::uint32_t rss_hash(std::span<const std::uint8_t> key, const FlowTuple& flow, bool with_ports);

// The RX queue the indirection table gives `hash`: table[hash % size] (Linux drivers index with
// the hash's low bits; the table size is a power of two on every driver this tool knows, where
// modulo and masking agree). -1 for an empty table.
int rss_queue(std::uint32_t hash, std::span<const std::uint32_t> indirection_table);

}  // namespace xttcp
