// What a DPDK port says of itself, in the engine's backend-neutral DeviceDescription: the pure
// conversions of what the ethdev API returns (RETA groups of 64 entries with masks, the flow
// types hashed), with no DPDK types, so they are unit-tested anywhere (tests/unit/dpdk).
// runtime.cc makes the calls; docs in io_backends/dpdk/README.md and docs/topology.md.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/status.hh"
#include "engine/result.hh"

namespace xttcp::dpdk {

// One rte_eth_rss_reta_entry64: entry i of the group is reported when bit i of `mask` is set.
inline constexpr std::size_t reta_group_size = 64;
struct RetaGroup {
  uint64_t mask = 0;
  std::array<uint16_t, reta_group_size> reta{};
};

// The groups a query of a table of `size` entries needs, every mask bit below `size` set.
std::vector<RetaGroup> reta_query_groups(uint32_t size);

// The flat table (entry -> RX queue) from queried groups: every entry below `size` must have
// been reported (its mask bit still set) and name a queue below `rx_queues`, else the error
// names the entry.
Expected<std::vector<uint32_t>> flatten_reta(const std::vector<RetaGroup>& groups, uint32_t size,
                                             uint32_t rx_queues);

// The flow types a port hashes on (from its rss_hf), as the kernel path words them per flow
// type (tcp4, udp4, tcp6, udp6; describe_hash_fields' words): "src-ip dst-ip src-port
// dst-port" where the type's ports are hashed, "src-ip dst-ip" where only its addresses are,
// "none" where neither.
struct HashedTypes {
  bool ipv4 = false, ipv4_tcp = false, ipv4_udp = false;
  bool ipv6 = false, ipv6_tcp = false, ipv6_udp = false;
};
std::vector<std::pair<std::string, std::string>> hash_fields_of(const HashedTypes& hashed);

// The note when the port's NUMA node holds none of the CPUs the process may run on
// (`allowed_nodes`: their nodes), as the kernel path warns of a NIC off the workers' node;
// "" when it does or either is unknown.
std::string numa_warning(const std::string& port, int port_node,
                         const std::vector<int>& allowed_nodes);

}  // namespace xttcp::dpdk
