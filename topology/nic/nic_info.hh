// What xttcp knows about one network interface: identity, locality, queues and their IRQs, RSS.
// Every part a machine may not give (a VM without the RSS ioctl, no permission, a virtual
// interface without a device) is an Error saying why ("not available: <reason>"), never a
// failure of the whole discovery.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/status.hh"
#include "topology/nic/queue_stats.hh"

namespace xttcp {

struct NicDriver {   // ETHTOOL_GDRVINFO
  std::string name;  // "virtio_net", "ena", "mlx5_core"
  std::string version;
  std::string firmware;
  std::string bus_info;  // "0000:00:03.0" for PCI
};

struct NicChannels {  // ETHTOOL_GCHANNELS: current and (max) counts
  std::uint32_t rx = 0, tx = 0, other = 0, combined = 0;
  std::uint32_t max_rx = 0, max_tx = 0, max_other = 0, max_combined = 0;
};

struct NicRings {  // ETHTOOL_GRINGPARAM
  std::uint32_t rx = 0, tx = 0, max_rx = 0, max_tx = 0;
};

struct NicCoalescing {  // ETHTOOL_GCOALESCE
  std::uint32_t rx_usecs = 0, tx_usecs = 0;
  std::uint32_t rx_frames = 0, tx_frames = 0;
  bool adaptive_rx = false, adaptive_tx = false;
};

// The offloads a driver update can change, on (true) or off (legacy ethtool get ioctls).
struct NicOffloads {
  std::vector<std::pair<std::string, bool>> features;  // "tso", "gso", "gro", "lro", "rx-checksum",
                                                       // "tx-checksum", in that order
};
struct NicRss {                            // ETHTOOL_GRSSH
  std::vector<std::uint32_t> indirection;  // RX queue per table entry
  std::vector<std::uint8_t> key;
  std::uint8_t hash_function = 0;  // ETH_RSS_HASH_* bits (1 = Toeplitz)
};

// What one flow type is hashed on (ETHTOOL_GRXFH): "src-ip dst-ip src-port dst-port".
struct NicHashFields {
  std::string flow_type;  // "tcp4", "udp4", "tcp6", "udp6"
  Expected<std::string> fields = fail("not read");
};

enum class QueueKind { rx, tx, combined, other };
const char* queue_kind_name(QueueKind kind);

// One interrupt of the NIC and the queue it serves (from its /proc/interrupts name).
struct NicIrq {
  int irq = 0;
  std::string name;  // "virtio2-input.0", "mlx5_comp3@pci:0000:00:08.0"
  QueueKind kind = QueueKind::other;
  int queue = -1;  // queue index for rx/tx/combined, -1 for other
  Expected<std::vector<int>> affinity = fail("not read");            // smp_affinity_list
  Expected<std::vector<int>> effective_affinity = fail("not read");  // effective_affinity_list
};

// A kernel queue of the interface (/sys/class/net/IF/queues): RPS or XPS CPUs.
struct NicQueueSteering {
  QueueKind kind = QueueKind::rx;  // rx (rps_cpus) or tx (xps_cpus)
  int queue = 0;
  Expected<std::vector<int>> cpus = fail("not read");  // empty = steering off
};

struct NicInfo {
  std::string name;
  Expected<NicDriver> driver = fail("not read");
  Expected<std::string> pci_address = fail("not read");
  Expected<int> numa_node = fail("not read");  // -1: the platform gives none
  Expected<std::vector<int>> local_cpus = fail("not read");
  Expected<int> mtu = fail("not read");
  Expected<int> max_mtu = fail("not read");
  Expected<int> speed_mbps = fail("not read");
  Expected<NicChannels> channels = fail("not read");
  Expected<NicRings> rings = fail("not read");
  Expected<NicCoalescing> coalescing = fail("not read");
  Expected<NicOffloads> offloads = fail("not read");
  Expected<NicRss> rss = fail("not read");
  std::vector<NicHashFields> hash_fields;
  Expected<std::vector<NicIrq>> irqs = fail("not read");
  std::vector<NicQueueSteering> steering;  // one per /sys/class/net/IF/queues entry
  Expected<QueueStatsRead> queue_counters = fail("not read");  // since boot, its source chosen
};

// System-wide settings the warnings compare against (nic_discovery.hh reads them).
struct TuningFacts {
  Expected<long long> rmem_max = fail("not read");      // net.core.rmem_max
  Expected<long long> wmem_max = fail("not read");      // net.core.wmem_max
  Expected<long long> tcp_rmem_max = fail("not read");  // third field of net.ipv4.tcp_rmem
  Expected<long long> tcp_wmem_max = fail("not read");
  Expected<bool> irqbalance_running = fail("not read");
};

}  // namespace xttcp
