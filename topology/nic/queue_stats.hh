// Per-queue counters from a NIC's ETHTOOL_GSTATS: each driver names them its own way; this maps
// the names to (queue, direction, packets or bytes). Pure, so fixtures shaped like each driver's
// documented names test it (tests/unit/topology/fixtures/gstats_*.txt).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace xttcp {

struct QueueCounters {
  std::optional<std::uint64_t> rx_packets, rx_bytes, tx_packets, tx_bytes;
};

// Where per-queue counters come from. netlink qstats (netlink_qstats.hh) is preferred whenever
// the kernel answers it with a queue: its rx-packets, rx-bytes, tx-packets and tx-bytes mean the
// same for every driver (netdev.yaml defines them), while each driver names and scopes its
// ETHTOOL_GSTATS counters its own way (veth's count its NAPI path only, gve's bytes only). The
// driver's names are read where qstats is refused (veth, ena, gve, hv_netvsc, kernels before 6.9).
enum class QueueStatsSource { ethtool, netlink_qstats };
const char* queue_stats_source_name(QueueStatsSource source);  // "ethtool", "netlink qstats"

struct QueueStatsRead {
  QueueStatsSource source = QueueStatsSource::ethtool;
  std::map<int, QueueCounters> queues;
};

// The drivers' names (docs/topology.md has the table):
//   {rx,tx}_queue_N_{packets,bytes}      virtio_net, hv_netvsc, ixgbe, ice
//   rx_queue_N_xdp_{packets,bytes}       veth (its NAPI path: GRO or XDP on)
//   queue_N_{rx,tx}_{cnt,bytes}          ena
//   {rx,tx}N_{packets,bytes}             mlx5_core
//   {rx,tx}-N_{packets,bytes}            mana;  {rx,tx}-N.{packets,bytes}  i40e
//   {rx,tx}_bytes[N]                     gve (bytes only: its packets are not per queue)
// Names no pattern knows (device-wide counters, drops, XDP actions) are left out.
std::map<int, QueueCounters> map_queue_stats(
    const std::vector<std::pair<std::string, std::uint64_t>>& stats);

// "name: value" lines (ETHTOOL_GSTATS as the fixtures hold it) -> pairs; other lines skipped.
std::vector<std::pair<std::string, std::uint64_t>> parse_stat_lines(const std::string& text);

}  // namespace xttcp
