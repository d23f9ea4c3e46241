// dpdk --rr requester (UDP, docs/rr.md): one TX/RX queue pair, every flow keeps --rr-depth
// requests in flight, each request one frame built from the flow's template with its send time
// (RrClock ticks, the kernel paths' clock: engine/stats/rr_clock.hh) in the payload's first 8
// bytes, as the kernel requesters send it; a response is matched to its flow by its destination
// port and timed from the stamp it carries back. So it talks to a kernel responder or a dpdk one.
// Polls its RX queue; answers ARP/ND for its own address (a kernel responder resolves it).
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include <rte_ethdev.h>

#include "engine/backend/data_worker.hh"
#include "engine/stats/rr_clock.hh"
#include "io_backends/common/rr_flow.hh"
#include "io_backends/common/rr_udp_gate.hh"
#include "io_backends/dpdk/runtime.hh"
#include "io_backends/dpdk/worker_seat.hh"

namespace xttcp::dpdk {

class DpdkRrRequester final : public DataWorker {
 public:
  DpdkRrRequester(const WorkerContext& context, Port& port)
      : context_(context), port_(&port), seat_(port, *context.plan) {}
  Status open() override;
  void run(const std::atomic<bool>& stop) override;
  WorkerReport finish() override;

 private:
  struct Flow {
    uint32_t slot = 0;
    std::vector<uint8_t> frame;  // the request, stamp 0 and checksum unset
    UdpRrWindow window;
  };
  void refill(Flow& flow, uint64_t now, const std::atomic<bool>& stop);
  void on_frames(rte_mbuf** mbufs, uint16_t count, const std::atomic<bool>& stop);
  void check_loss(uint64_t now, const std::atomic<bool>& stop);

  WorkerContext context_;
  Port* port_;
  WorkerSeat seat_;
  uint16_t queue_ = 0;
  bool ipv6_ = false;
  uint32_t request_ = 0, response_ = 0, depth_ = 1;
  std::size_t stamp_at_ = 0, checksum_at_ = 0;
  frame::UdpEndpoints endpoints_;  // this end's addresses, for ARP/ND answers
  std::vector<Flow> flows_;
  std::vector<int32_t> flow_of_port_;  // UDP port (our source) -> index in flows_, or -1
  uint64_t tx_full_ = 0, alloc_failed_ = 0, other_frames_ = 0, neighbours_answered_ = 0;
  // Round trips: stamped in this clock's ticks, recorded in ns (engine/stats/rr_clock.hh).
  const RrClock& clock_ = RrClock::get();
  const uint64_t loss_pause_ticks_ = clock_.from_ns(rr_udp_loss_pause_ns);
  WorkerReport report_;
};

}  // namespace xttcp::dpdk
