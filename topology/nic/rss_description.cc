#include "topology/nic/rss_description.hh"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

namespace xttcp {

namespace {

bool known_flow_type(const std::string& type) {
  return type == "tcp4" || type == "udp4" || type == "tcp6" || type == "udp6";
}

// Words describe_hash_fields() writes, and nothing else.
Status check_fields(const std::string& type, const std::string& fields) {
  if (fields.size() > rss_limits::max_fields_text)
    return fail(fmt::format("rss.hash_fields.{}: {} characters; at most {}", type, fields.size(),
                            rss_limits::max_fields_text));
  std::istringstream words(fields);
  std::string word;
  int count = 0;
  while (words >> word) {
    ++count;
    static constexpr const char* kWords[] = {"l2-dst",   "vlan",     "l3-proto", "src-ip", "dst-ip",
                                             "src-port", "dst-port", "none",     "discard"};
    if (std::none_of(std::begin(kWords), std::end(kWords),
                     [&](const char* known) { return word == known; }))
      return fail(
          fmt::format("rss.hash_fields.{}: unknown field (known: src-ip dst-ip "
                      "src-port dst-port l2-dst vlan l3-proto none discard)",
                      type));
  }
  if (count == 0) return fail(fmt::format("rss.hash_fields.{}: empty", type));
  return ok();
}

}  // namespace

Status check_rss_description(const RssDescription& rss) {
  if (rss.nic.size() > rss_limits::max_name)
    return fail(
        fmt::format("rss.nic: {} characters; at most {}", rss.nic.size(), rss_limits::max_name));
  if (rss.hash_function != "toeplitz" && rss.hash_function != "xor" &&
      rss.hash_function != "crc32" && rss.hash_function != "unknown")
    return fail("rss.hash_function: not one of toeplitz, xor, crc32, unknown");
  if (rss.key.empty() || rss.key.size() > rss_limits::max_key_bytes)
    return fail(
        fmt::format("rss.key: {} bytes; 1 to {}", rss.key.size(), rss_limits::max_key_bytes));
  if (rss.queues == 0 || rss.queues > rss_limits::max_queues)
    return fail(fmt::format("rss.queues: {}; 1 to {}", rss.queues, rss_limits::max_queues));
  if (rss.indirection.empty() || rss.indirection.size() > rss_limits::max_table)
    return fail(fmt::format("rss.indirection: {} entries; 1 to {}", rss.indirection.size(),
                            rss_limits::max_table));
  for (std::uint32_t queue : rss.indirection)
    if (queue >= rss.queues)
      return fail(fmt::format("rss.indirection: queue {} of {} queues", queue, rss.queues));
  if (rss.hash_fields.size() > 4) return fail("rss.hash_fields: more than 4 flow types");
  for (std::size_t i = 0; i < rss.hash_fields.size(); ++i) {
    const auto& [type, fields] = rss.hash_fields[i];
    if (!known_flow_type(type)) return fail("rss.hash_fields: not one of tcp4, udp4, tcp6, udp6");
    for (std::size_t j = 0; j < i; ++j)
      if (rss.hash_fields[j].first == type)
        return fail(fmt::format("rss.hash_fields.{}: given twice", type));
    if (Status checked = check_fields(type, fields); !checked) return checked;
  }
  if (rss.port_queues.size() > rss_limits::max_port_queues)
    return fail(fmt::format("rss.port_queues: {} entries; at most {}", rss.port_queues.size(),
                            rss_limits::max_port_queues));
  for (const auto& [port, queue] : rss.port_queues) {
    if (port == 0) return fail("rss.port_queues: port 0");
    if (queue >= rss.queues)
      return fail(fmt::format("rss.port_queues: queue {} of {} queues", queue, rss.queues));
  }
  return ok();
}

const char* rss_hash_function_name(std::uint8_t ethtool_bits) {
  // ETH_RSS_HASH_TOP, _XOR, _CRC32 of linux/ethtool.h: bits 0, 1, 2.
  if (ethtool_bits == 1) return "toeplitz";
  if (ethtool_bits == 2) return "xor";
  if (ethtool_bits == 4) return "crc32";
  return "unknown";
}

Expected<RssDescription> rss_description_of(const NicInfo& nic) {
  if (!nic.rss) return fail(fmt::format("{}: {}", nic.name, nic.rss.error().message));
  RssDescription rss;
  rss.nic = nic.name;
  rss.hash_function = rss_hash_function_name(nic.rss->hash_function);
  rss.key = nic.rss->key;
  rss.indirection = nic.rss->indirection;
  std::uint32_t highest = 0;
  for (std::uint32_t queue : rss.indirection) highest = std::max(highest, queue);
  rss.queues = highest + 1;
  if (nic.channels) {
    const std::uint32_t rx = nic.channels->rx + nic.channels->combined;
    rss.queues = std::max(rss.queues, rx);
  }
  for (const NicHashFields& fields : nic.hash_fields)
    if (fields.fields) rss.hash_fields.emplace_back(fields.flow_type, *fields.fields);
  if (Status checked = check_rss_description(rss); !checked)
    return fail(fmt::format("{}: its RSS is outside what xttcp handles: {}", nic.name,
                            checked.error().message));
  return rss;
}

bool hashes_ports(const std::string& fields) {
  std::istringstream words(fields);
  std::string word;
  bool source = false, destination = false;
  while (words >> word) {
    source = source || word == "src-port";
    destination = destination || word == "dst-port";
  }
  return source && destination;
}

}  // namespace xttcp
