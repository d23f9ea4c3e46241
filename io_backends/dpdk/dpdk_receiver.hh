// dpdk UDP receiver: polls its RX queue (worker i takes queue i; with fewer workers than queues,
// also i + W, ...) in bursts of 32, parses Ethernet/IPv4 or IPv6/UDP and accounts each datagram
// for its destination port with the kernel receivers' UdpSocketAccounting (same numbers), and
// answers ARP (IPv4) or neighbour solicitations (IPv6) for its address.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include <rte_ethdev.h>

#include "engine/backend/data_worker.hh"
#include "io_backends/common/udp_accounting.hh"
#include "io_backends/dpdk/runtime.hh"
#include "io_backends/dpdk/worker_seat.hh"

namespace xttcp::dpdk {

class DpdkUdpReceiver final : public DataWorker {
 public:
  DpdkUdpReceiver(const WorkerContext& context, Port& port)
      : context_(context), port_(&port), seat_(port, *context.plan) {}
  Status open() override;
  void run(const std::atomic<bool>& stop) override;
  WorkerReport finish() override;

 private:
  void on_frames(rte_mbuf** mbufs, uint16_t count, uint16_t queue, uint64_t now_ns);
  // ARP or ND for our address: answered in place from `queue`; true if the mbuf was sent.
  bool answer_neighbour(rte_mbuf* mbuf, uint16_t queue);

  WorkerContext context_;
  Port* port_;
  WorkerSeat seat_;
  std::vector<uint16_t> queues_;
  bool ipv6_ = false;
  uint32_t local_ip_ = 0;  // host order; 0 = any (no filter, no ARP answers)
  frame::Ipv6Address local_ip6_{};
  bool local_ip6_set_ = false;  // not :: (then: no filter, no ND answers)
  uint16_t base_port_ = 0;
  // Per receiver port (index = UDP port - base): its accounting, created at the first datagram,
  // and the counter slot its bytes go to (its own when this worker owns the port, else this
  // worker's first: a flow hashed to this worker's queue is still counted, once).
  std::vector<std::unique_ptr<UdpSocketAccounting>> accounting_;
  std::vector<uint32_t> byte_slot_;
  bool seen_data_ = false;
  uint64_t other_frames_ = 0;  // not IPv4/UDP to one of our ports
  uint64_t arp_answered_ = 0;
  uint64_t nd_answered_ = 0;
  WorkerReport report_;
};

}  // namespace xttcp::dpdk
