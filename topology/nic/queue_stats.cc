#include "topology/nic/queue_stats.hh"

#include <charconv>
#include <sstream>
#include <string_view>

namespace xttcp {

namespace {

enum class Field { rx_packets, rx_bytes, tx_packets, tx_bytes };

// `name` is prefix + a queue number + suffix: the number.
std::optional<int> queue_in(std::string_view name, std::string_view prefix,
                            std::string_view suffix) {
  if (name.size() <= prefix.size() + suffix.size() || name.substr(0, prefix.size()) != prefix ||
      name.substr(name.size() - suffix.size()) != suffix)
    return std::nullopt;
  const std::string_view digits =
      name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  if (digits.empty() || digits.size() > 5 || digits[0] < '0' || digits[0] > '9')
    return std::nullopt;
  int queue = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), queue);
  if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return queue;
}

struct Pattern {
  std::string_view prefix, suffix;
  Field field;
  bool fallback = false;  // counts only where no other name gave the figure
};

constexpr Pattern kPatterns[] = {
    {"rx_queue_", "_packets", Field::rx_packets},
    {"rx_queue_", "_bytes", Field::rx_bytes},
    {"tx_queue_", "_packets", Field::tx_packets},
    {"tx_queue_", "_bytes", Field::tx_bytes},
    // veth's NAPI path; virtio_net has the same names for its XDP share, next to the totals.
    {"rx_queue_", "_xdp_packets", Field::rx_packets, true},
    {"rx_queue_", "_xdp_bytes", Field::rx_bytes, true},
    {"queue_", "_rx_cnt", Field::rx_packets},
    {"queue_", "_rx_bytes", Field::rx_bytes},
    {"queue_", "_tx_cnt", Field::tx_packets},
    {"queue_", "_tx_bytes", Field::tx_bytes},
    {"rx", "_packets", Field::rx_packets},
    {"rx", "_bytes", Field::rx_bytes},
    {"tx", "_packets", Field::tx_packets},
    {"tx", "_bytes", Field::tx_bytes},
    {"rx-", "_packets", Field::rx_packets},
    {"rx-", "_bytes", Field::rx_bytes},
    {"tx-", "_packets", Field::tx_packets},
    {"tx-", "_bytes", Field::tx_bytes},
    {"rx-", ".packets", Field::rx_packets},
    {"rx-", ".bytes", Field::rx_bytes},
    {"tx-", ".packets", Field::tx_packets},
    {"tx-", ".bytes", Field::tx_bytes},
    {"rx_bytes[", "]", Field::rx_bytes},
    {"tx_bytes[", "]", Field::tx_bytes},
};

std::optional<std::uint64_t>& slot(QueueCounters& counters, Field field) {
  switch (field) {
    case Field::rx_packets: return counters.rx_packets;
    case Field::rx_bytes: return counters.rx_bytes;
    case Field::tx_packets: return counters.tx_packets;
    case Field::tx_bytes: break;
  }
  return counters.tx_bytes;
}

}  // namespace

const char* queue_stats_source_name(QueueStatsSource source) {
  return source == QueueStatsSource::netlink_qstats ? "netlink qstats" : "ethtool";
}

std::map<int, QueueCounters> map_queue_stats(
    const std::vector<std::pair<std::string, std::uint64_t>>& stats) {
  std::map<int, QueueCounters> queues;
  for (const bool fallback : {false, true}) {
    for (const auto& [name, value] : stats) {
      for (const Pattern& pattern : kPatterns) {
        if (pattern.fallback != fallback) continue;
        // queue_in() takes digits only between the two, so "rx_queue_0_xdp_packets" never
        // reads as "rx_queue_" N "_packets" and "rx0_xdp_drops" matches nothing.
        const std::optional<int> queue = queue_in(name, pattern.prefix, pattern.suffix);
        if (!queue || *queue > 65535) continue;
        std::optional<std::uint64_t>& field = slot(queues[*queue], pattern.field);
        if (!field) field = value;
        break;
      }
    }
  }
  return queues;
}

std::vector<std::pair<std::string, std::uint64_t>> parse_stat_lines(const std::string& text) {
  std::vector<std::pair<std::string, std::uint64_t>> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const std::size_t colon = line.rfind(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    name.erase(0, name.find_first_not_of(" \t"));
    std::string number = line.substr(colon + 1);
    number.erase(0, number.find_first_not_of(" \t"));
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (error != std::errc() || name.empty()) continue;
    (void)end;
    out.emplace_back(std::move(name), value);
  }
  return out;
}

}  // namespace xttcp
