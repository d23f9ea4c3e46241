// What a receiver tells its sender about the RSS of the NIC its data arrives by, so the sender
// can choose source ports that land its flows on chosen RX queues (docs/topology.md). Comes from
// the NIC (discovery) or, for NICs that report none, a file; crosses the wire in the native
// hello, so every part is bounded and checked as hostile input.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/status.hh"
#include "topology/nic/nic_info.hh"

namespace xttcp {

namespace rss_limits {
inline constexpr std::size_t max_key_bytes = 52;     // the longest key a driver uses (ice, i40e)
inline constexpr std::size_t max_table = 4096;       // indirection table entries
inline constexpr std::uint32_t max_queues = 4096;    // RX queues
inline constexpr std::size_t max_port_queues = 512;  // one per data port (-P is at most 512)
inline constexpr std::size_t max_name = 64;          // interface names, reasons: short text
inline constexpr std::size_t max_fields_text = 80;   // "src-ip dst-ip src-port dst-port" and kin
}  // namespace rss_limits

struct RssDescription {
  std::string nic;                         // where it came from: "eth0", "file rss.json"
  std::string hash_function = "toeplitz";  // "toeplitz", "xor", "crc32" or "unknown"
  std::vector<std::uint8_t> key;           // 1..52 bytes
  std::vector<std::uint32_t> indirection;  // 1..4096 entries, each < queues
  std::uint32_t queues = 0;                // RX queues, 1..4096
  // Per flow type ("tcp4", "udp4", "tcp6", "udp6"): the fields hashed, describe_hash_fields'
  // words ("src-ip dst-ip src-port dst-port"). A type not listed was not reported.
  std::vector<std::pair<std::string, std::string>> hash_fields;
  // The receiver's wish, by data port: its worker for that port runs on the CPU taking this RX
  // queue's interrupt (--placement irq, irq-sibling); empty otherwise.
  std::vector<std::pair<std::uint16_t, std::uint32_t>> port_queues;
};

// Every rule above; the error names the part and the rule ("rss.key: 60 bytes; at most 52").
Status check_rss_description(const RssDescription& rss);

// "toeplitz" for ETH_RSS_HASH_TOP, "xor", "crc32", else "unknown".
const char* rss_hash_function_name(std::uint8_t ethtool_bits);

// The description of a discovered NIC, or why it has none ("eth0: not available: ...").
Expected<RssDescription> rss_description_of(const NicInfo& nic);

// What `fields` says about ports: both ports hashed (a source port moves the flow).
bool hashes_ports(const std::string& fields);

}  // namespace xttcp
