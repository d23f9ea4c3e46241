// io_uring --rr requester (docs/rr.md): the epoll requester's transactions on one ring per
// worker. Every flow keeps one RECV armed; TCP requests go out in one SEND at a time from a
// shared buffer, UDP requests one SEND per datagram from the flow's own slots (each carries its
// send time until it is answered). TCP and UDP.
#pragma once

#include <vector>

#include "base/unique_fd.hh"
#include "engine/backend/data_worker.hh"
#include "engine/stats/rr_clock.hh"
#include "io_backends/common/io_buffer.hh"
#include "io_backends/common/rr_flow.hh"
#include "io_backends/common/rr_udp_gate.hh"
#include "io_backends/uring/probe.hh"
#include "io_backends/uring/ring.hh"

namespace xttcp {

class UringRrRequester final : public DataWorker {
 public:
  UringRrRequester(const WorkerContext& context, const UringCapabilities& caps)
      : context_(context), caps_(caps) {}
  Status open() override;
  void run(const std::atomic<bool>& stop) override;
  WorkerReport finish() override;

 private:
  struct Flow {
    UniqueFd fd;
    uint32_t slot = 0;
    bool closed = false;
    std::vector<unsigned char> in;  // the armed RECV's buffer
    bool recv_armed = false;
    uint32_t sends_armed = 0;
    // TCP
    StampQueue stamps;
    MessageCounter responses;
    uint64_t unsent = 0;
    // UDP
    std::vector<unsigned char> requests;  // depth slots of one request each
    uint32_t next_request = 0;
    UdpRrWindow window;
  };

  void arm_recv(uint32_t index);
  void tcp_send(uint32_t index);
  void udp_refill(uint32_t index, uint64_t now);
  void on_completion(const io_uring_cqe& cqe);
  void on_recv(uint32_t index, int res);
  void fail_flow(Flow& flow, const char* call, int err);
  void cancel_and_drain();

  const WorkerContext& context_;
  UringCapabilities caps_;
  Ring ring_;
  uint32_t request_ = 0, response_ = 0, depth_ = 1;
  bool udp_ = false, stopping_ = false;
  uint32_t armed_ = 0;
  std::vector<Flow> flows_;
  IoBuffer out_;  // TCP requests: bytes of 'A'
  // Round trips: stamped in this clock's ticks, recorded in ns (engine/stats/rr_clock.hh).
  const RrClock& clock_ = RrClock::get();
  const uint64_t loss_pause_ticks_ = clock_.from_ns(rr_udp_loss_pause_ns);
  WorkerReport report_;
};

}  // namespace xttcp
