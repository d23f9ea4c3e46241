// The process's DPDK environment: the EAL, initialised once on the control path from
// --dpdk-args, and the ports, each configured and started once (all its queues, one mbuf pool)
// and then shared by every worker of the process (--local runs a sender and a receiver on it).
#pragma once

#include <atomic>
#include <memory>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <rte_ethdev.h>
#include <rte_mempool.h>

#include "base/status.hh"
#include "engine/net/address.hh"
#include "engine/result.hh"
#include "io_backends/dpdk/frame.hh"

namespace xttcp::dpdk {

inline constexpr uint16_t burst = 32;
// The largest frame one mbuf holds here (no multi-segment frames): jumbo frames of MTU 9000
// with room to spare. Senders refuse a -b whose frame is larger.
inline constexpr uint32_t max_frame_room = 9728;

// xttcp's own counts per queue: each field has one writer (the queue's sender or receiver).
struct alignas(64) QueueCounters {
  std::atomic<uint64_t> tx_frames{0}, tx_bytes{0};  // bytes: whole frames without the FCS
  std::atomic<uint64_t> rx_frames{0}, rx_bytes{0};
};

inline void add_relaxed(std::atomic<uint64_t>& counter, uint64_t n) {
  counter.store(counter.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
}

struct Port {
  uint16_t id = 0;
  std::string name;     // rte_eth_dev_get_name_by_port: "net_ring0", "0000:00:05.0"
  std::string driver;   // "net_ring"
  uint16_t queues = 1;  // rx = tx queues configured: one pair per worker
  uint16_t mtu = 1500;
  uint16_t max_mtu = 1500;
  uint32_t frame_room = 0;  // the largest frame an mbuf of the pool holds
  int socket = -1;          // rte_eth_dev_socket_id: the NUMA node, -1 unknown
  frame::MacAddress mac{};
  rte_mempool* pool = nullptr;
  bool ipv4_checksum_offload = false;  // tx_offload_capa had it: the NIC fills the header sum
  bool udp_checksum_offload = false;   // ... and the UDP sum (given the pseudo-header sum)
  std::vector<std::string> notes;      // what configuring it decided (MTU, NUMA), once
  // What the ethdev API said of the port once it started (NUMA node, queues, RSS key and
  // indirection table, each part or why not): port_description.hh. Written once, before any
  // worker of the process reads it.
  DeviceDescription description;
  // The CPUs of the port's NUMA node (topology/), when the host has several nodes and the port
  // knows its own; empty otherwise (placement is then left as planned).
  std::vector<int> local_cpus;
  // A sender of this process uses the TX queues (--local): receivers then leave ARP/ND alone,
  // since a TX queue takes one thread; a receiver of this process (--local) means the sender
  // talks to this very port and needs no neighbour resolution.
  std::atomic<bool> has_sender{false};
  std::atomic<bool> has_receiver{false};
  std::atomic<uint32_t> pollers{0};           // worker threads spinning on the port (cycles/frame)
  std::unique_ptr<QueueCounters[]> counters;  // [queues]
};

// What a worker asks of the port it starts: its queue count, and the frames it sends (0 for a
// receiver, which takes the largest frames the port allows).
struct PortRequest {
  uint16_t queues = 1;
  uint32_t send_frame = 0;
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
  // configured and started on first use with up to `request.queues` queue pairs (at most the
  // device's), its MTU and mbufs sized for the request's frames.
  Expected<Port*> port(const std::string& selector, const PortRequest& request);

  // The MAC of `target` (IPv4 by ARP, IPv6 by ND) seen from `port`: a request on TX queue 0,
  // every RX queue polled, repeated every 200 ms until `timeout_ms`. Control path, before any
  // worker of the process polls the port; answers are cached.
  Expected<frame::MacAddress> resolve(Port& port, const SocketAddress& source,
                                      const SocketAddress& target, uint32_t timeout_ms);

  // "0 net_ring0 02:...; 1 ..." for messages.
  std::string describe_ports() const;
  // One line per port: name, PMD, MAC, NUMA socket, queues, MTU, checksum offloads.
  std::vector<std::string> port_details() const;
  // The device counters of the started ports (the engine reads them at phase edges).
  std::vector<Port*> started_ports();

 private:
  Runtime() = default;
  // At exit: stops and closes the started ports (PMDs such as net_af_xdp release their sockets
  // and BPF objects only then), frees their pools, and cleans the EAL up.
  ~Runtime();
  Expected<uint16_t> find_port(const std::string& selector) const;
  Expected<std::unique_ptr<Port>> start_port(uint16_t id, const PortRequest& request);

  mutable std::mutex mutex_;
  bool tried_ = false;
  std::string init_error_;                    // empty after a successful init
  std::vector<std::unique_ptr<Port>> ports_;  // started ports
  std::vector<std::pair<std::string, frame::MacAddress>> neighbours_;  // "port/address" -> MAC
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

// Every counter of the port, absolute, named: the rte_eth_stats fields (ipackets, opackets,
// ibytes, obytes, imissed, ierrors, oerrors, rx_nombuf), then every xstat by its own name.
std::vector<std::pair<std::string, uint64_t>> read_counters(uint16_t port);

// Keeps an unpinned worker on the port's NUMA node (Port::local_cpus); a pinned one stays where
// --pin/-m put it, with a note when that is another node. Returns the note, or "".
std::string place_worker(const Port& port, uint32_t worker, std::optional<int> pinned_cpu);

// Registers the calling (non-EAL) thread as an lcore so the mbuf pool's per-lcore cache serves
// it; false if no lcore id was free (the pool still works, without the cache).
bool register_thread();
void unregister_thread();

}  // namespace xttcp::dpdk
