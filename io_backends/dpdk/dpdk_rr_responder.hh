// dpdk --rr responder (UDP, docs/rr.md): polls its RX queues like the stream receiver and turns
// every request to its address and ports into the response in the same mbuf (ends swapped, the
// request's first 8 bytes, its send time, kept: frame::turn_into_response), sent back from the
// queue it came in on. So a kernel requester or a dpdk one can time it. Answers ARP/ND for its
// address; --rr-delay-us holds each burst's answers that long.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include <rte_ethdev.h>

#include "engine/backend/data_worker.hh"
#include "io_backends/common/rr_udp_gate.hh"
#include "io_backends/dpdk/runtime.hh"
#include "io_backends/dpdk/worker_seat.hh"

namespace xttcp::dpdk {

class DpdkRrResponder final : public DataWorker {
 public:
  DpdkRrResponder(const WorkerContext& context, Port& port)
      : context_(context), port_(&port), seat_(port, *context.plan) {}
  Status open() override;
  void run(const std::atomic<bool>& stop) override;
  WorkerReport finish() override;

 private:
  void serve(rte_mbuf** mbufs, uint16_t count, uint16_t queue, const std::atomic<bool>& stop);

  WorkerContext context_;
  Port* port_;
  WorkerSeat seat_;
  std::vector<uint16_t> queues_;
  frame::UdpEndpoints self_;  // this end's address (source_ip / source_ip6), for ARP/ND
  uint16_t base_port_ = 0;
  uint32_t response_ = 0;
  UdpRrGate gate_;                      // who gets an answer, and how large (rr_udp_gate.hh)
  std::vector<uint32_t> slot_of_port_;  // per receiver port (index = port - base): its counter
  bool seen_data_ = false;
  uint64_t other_frames_ = 0, neighbours_answered_ = 0, unanswerable_ = 0, tx_full_ = 0;
  WorkerReport report_;
};

}  // namespace xttcp::dpdk
