// The NIC's queues over the measured window: per-queue counters (netlink qstats, else the
// driver's ETHTOOL_GSTATS names mapped by topology/nic/queue_stats; the source is chosen once,
// at discovery, so both edges read the same one), its queue IRQs per CPU (/proc/interrupts),
// NET_RX/NET_TX softirqs and each CPU's time (per_cpu_counters.hh: /proc on Linux, the
// per-processor times on Windows). Read on the control thread at the window's edges
// (with the other system probes), never in a data loop. The NIC is --nic, else the interface toward
// the sender's -s address or holding the receiver's -r address; loopback and "every address" watch
// none.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/result.hh"
#include "engine/spec.hh"
#include "engine/stats/proc_parsers.hh"
#include "topology/nic/nic_info.hh"
#include "topology/nic/nic_parse.hh"
#include "topology/nic/queue_stats.hh"

namespace xttcp {

struct QueueSnapshot {
  std::string nic, driver;
  std::vector<NicIrq> queue_irqs;  // the NIC's queue IRQs (rx, tx, combined), found once
  std::map<int, QueueCounters> queues;
  std::string queues_source;                       // "ethtool", "netlink qstats"; "" with why
  std::string queues_why;                          // why `queues` is empty
  std::map<int, std::vector<std::uint64_t>> irqs;  // by IRQ number: its per-CPU counts
  std::string irqs_why;
  std::optional<NetSoftirqs> softirqs;
  std::string softirqs_why;
  std::optional<std::vector<CpuLineTicks>> cpus;  // read_cpu_ticks
  std::string cpus_why;
};

class QueueProbe {
 public:
  // Finds the NIC and its queue IRQs once (discovery), so take() only reads counters.
  QueueProbe(const TestSpec& spec, std::string proc_root = "/proc");
  // nullopt when no NIC is watched.
  std::optional<QueueSnapshot> take() const;

 private:
  std::string proc_root_;
  std::string nic_;  // "" = none watched
  std::string driver_;
  std::optional<QueueStatsSource> source_;  // chosen at discovery; none: queues_why_ says why
  std::string queues_why_;
  std::vector<NicIrq> irqs_;  // the NIC's queue IRQs (rx, tx, combined)
  std::string irqs_why_;
};

// The window from two snapshots: per-queue, per-IRQ and per-CPU deltas (a counter that went
// backwards counts 0), each CPU's busy shares (by CPU id: one online at a single edge is left
// out), the busiest CPU and the imbalance figures. Pure.
QueueWindow queue_window(const QueueSnapshot& begin, const QueueSnapshot& end);

}  // namespace xttcp
