// epoll --rr requester (docs/rr.md): every flow keeps --rr-depth requests of -b bytes in flight
// and times each until its response is whole, into the flow's histogram. TCP and UDP. A worker
// with one flow blocks in recv() (bounded by SO_RCVTIMEO) instead of epoll_wait: one system
// call fewer per transaction, as a ping-pong tool does.
#pragma once

#include <string>
#include <vector>

#include "base/unique_fd.hh"
#include "engine/backend/data_worker.hh"
#include "engine/stats/rr_clock.hh"
#include "io_backends/common/io_buffer.hh"
#include "io_backends/common/rr_flow.hh"
#include "io_backends/common/rr_udp_gate.hh"

namespace xttcp {

class EpollRrRequester final : public DataWorker {
 public:
  explicit EpollRrRequester(const WorkerContext& context) : context_(context) {}
  Status open() override;
  void run(const std::atomic<bool>& stop) override;
  WorkerReport finish() override;

 private:
  struct Flow {
    UniqueFd fd;
    uint32_t slot = 0;
    bool closed = false;
    // TCP
    StampQueue stamps;
    MessageCounter responses;
    uint64_t unsent = 0;     // request bytes queued and not yet taken by send()
    bool wants_out = false;  // in the epoll set for EPOLLOUT too
    // UDP
    UdpRrWindow window;
  };

  void tcp_loop(const std::atomic<bool>& stop);
  void udp_loop(const std::atomic<bool>& stop);
  void single_flow_loop(const std::atomic<bool>& stop);
  void tcp_start(Flow& flow);
  void tcp_read(Flow& flow);
  // `n` bytes of responses arrived: completes the whole ones and queues their successors.
  void tcp_received(Flow& flow, uint64_t n);
  void tcp_flush(Flow& flow);
  void udp_read(Flow& flow);
  // A datagram of `n` bytes (in in_) arrived on `flow`.
  void udp_received(Flow& flow, size_t n);
  void udp_refill(Flow& flow, uint64_t now);
  void udp_check_loss(Flow& flow, uint64_t now);
  void fail_flow(Flow& flow, const char* call, int err);

  const WorkerContext& context_;
  uint32_t request_ = 0, response_ = 0, depth_ = 1;
  bool blocking_ = false;  // one flow: blocking socket, no epoll_wait
  UniqueFd epoll_;
  std::vector<Flow> flows_;
  IoBuffer out_, in_;
  // Round trips: stamped in this clock's ticks, recorded in ns (engine/stats/rr_clock.hh).
  const RrClock& clock_ = RrClock::get();
  const uint64_t loss_pause_ticks_ = clock_.from_ns(rr_udp_loss_pause_ns);
  WorkerReport report_;
};

}  // namespace xttcp
