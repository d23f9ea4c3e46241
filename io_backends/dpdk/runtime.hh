// The process's DPDK environment: the EAL, initialised once on the control path from
// --dpdk-args, and the ports, each configured and started once (all its queues, one mbuf pool)
// and then shared by every worker of the process (--local runs a sender and a receiver on it).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include <rte_ethdev.h>
#include <rte_mempool.h>

#include "engine/status.hh"
#include "io_backends/dpdk/frame.hh"

namespace xttcp::dpdk {

inline constexpr uint16_t burst = 32;

struct Port {
  uint16_t id = 0;
  std::string name;      // rte_eth_dev_get_name_by_port: "net_ring0", "0000:00:05.0"
  std::string driver;    // "net_ring"
  uint16_t queues = 1;   // rx = tx queues configured; worker i sends on queue i
  uint16_t mtu = 1500;
  frame::MacAddress mac{};
  rte_mempool* pool = nullptr;
  bool ipv4_checksum_offload = false;  // tx_offload_capa had it: the NIC fills the header sum
  bool udp_checksum_offload = false;   // ... and the UDP sum (given the pseudo-header sum)
  // A sender of this process uses the TX queues (--local): receivers then leave ARP alone,
  // since a TX queue takes one thread.
  std::atomic<bool> has_sender{false};

  Port() = default;
  Port(const Port& other) { *this = other; }
  Port& operator=(const Port& other) {
    id = other.id, name = other.name, driver = other.driver, queues = other.queues;
    mtu = other.mtu, mac = other.mac, pool = other.pool;
    ipv4_checksum_offload = other.ipv4_checksum_offload;
    udp_checksum_offload = other.udp_checksum_offload;
    has_sender.store(other.has_sender.load());
    return *this;
  }
};

class Runtime {
 public:
  static Runtime& instance();

  // rte_eal_init with `args` (split at spaces; a --file-prefix xttcp-PID and an -l of one CPU are
  // added unless given). Once per process: later calls return the first outcome (the EAL cannot
  // be initialised twice). Keeps the calling thread's CPU affinity.
  Status init(const std::string& args);
  bool initialised() const;

  // The port named by --dpdk-port (id, PCI address, device name or MAC; "" = the first port),
  // configured and started on first use with up to `queues_wanted` queue pairs.
  Expected<Port*> port(const std::string& selector, uint16_t queues_wanted);

  // "0 net_ring0 02:...; 1 ..." for messages.
  std::string describe_ports() const;

 private:
  Runtime() = default;
  Expected<uint16_t> find_port(const std::string& selector) const;
  Expected<Port> start_port(uint16_t id, uint16_t queues_wanted);

  mutable std::mutex mutex_;
  bool tried_ = false;
  std::string init_error_;  // empty after a successful init
  std::vector<Port> ports_;  // started ports; stable addresses (reserved)
};

// ns on a TSC clock aligned with CLOCK_MONOTONIC at construction (cheap per burst).
class TscClock {
 public:
  TscClock();
  uint64_t now_ns() const;
  uint64_t hz() const { return hz_; }

 private:
  uint64_t tsc0_ = 0, ns0_ = 0, hz_ = 1;
  double ns_per_tick_ = 1.0;
};

// rte_eth_stats of a port, and the note with their deltas since `earlier`.
rte_eth_stats read_stats(uint16_t port);
std::string stats_note(const Port& port, const rte_eth_stats& earlier, const rte_eth_stats& later);

// Registers the calling (non-EAL) thread as an lcore so the mbuf pool's per-lcore cache serves
// it; false if no lcore id was free (the pool still works, without the cache).
bool register_thread();
void unregister_thread();

}  // namespace xttcp::dpdk
