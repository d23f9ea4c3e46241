#include "io_backends/dpdk/port_description.hh"

#include <algorithm>

#include <fmt/format.h>

namespace xttcp::dpdk {

std::vector<RetaGroup> reta_query_groups(uint32_t size) {
  std::vector<RetaGroup> groups((size + reta_group_size - 1) / reta_group_size);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const std::size_t in_group = std::min<std::size_t>(reta_group_size, size - g * reta_group_size);
    groups[g].mask = in_group == reta_group_size ? ~uint64_t{0} : (uint64_t{1} << in_group) - 1;
  }
  return groups;
}

Expected<std::vector<uint32_t>> flatten_reta(const std::vector<RetaGroup>& groups, uint32_t size,
                                             uint32_t rx_queues) {
  if (groups.size() * reta_group_size < size)
    return fail(fmt::format("{} groups hold fewer than {} entries", groups.size(), size));
  std::vector<uint32_t> table;
  table.reserve(size);
  for (uint32_t entry = 0; entry < size; ++entry) {
    const RetaGroup& group = groups[entry / reta_group_size];
    const std::size_t slot = entry % reta_group_size;
    if ((group.mask & (uint64_t{1} << slot)) == 0)
      return fail(fmt::format("entry {} not reported", entry));
    if (group.reta[slot] >= rx_queues)
      return fail(fmt::format("entry {} names queue {} of {} RX queues", entry, group.reta[slot],
                              rx_queues));
    table.push_back(group.reta[slot]);
  }
  return table;
}

std::vector<std::pair<std::string, std::string>> hash_fields_of(const HashedTypes& hashed) {
  const auto words = [](bool ip, bool ports) {
    return ports ? "src-ip dst-ip src-port dst-port" : ip ? "src-ip dst-ip" : "none";
  };
  return {{"tcp4", words(hashed.ipv4, hashed.ipv4_tcp)},
          {"udp4", words(hashed.ipv4, hashed.ipv4_udp)},
          {"tcp6", words(hashed.ipv6, hashed.ipv6_tcp)},
          {"udp6", words(hashed.ipv6, hashed.ipv6_udp)}};
}

std::string numa_warning(const std::string& port, int port_node,
                         const std::vector<int>& allowed_nodes) {
  if (port_node < 0 || allowed_nodes.empty()) return "";
  if (std::find(allowed_nodes.begin(), allowed_nodes.end(), port_node) != allowed_nodes.end())
    return "";
  std::string nodes;
  for (int node : allowed_nodes) nodes += fmt::format("{}{}", nodes.empty() ? "" : ", ", node);
  return fmt::format(
      "{} is on NUMA node {}, but the CPUs xttcp may run on are on node(s) {}: every frame "
      "crosses nodes (run xttcp on CPUs of node {}: taskset, or -m)",
      port, port_node, nodes, port_node);
}

}  // namespace xttcp::dpdk
