// io_uring UDP sender: one connected UDP socket per flow. Each flow keeps one chain of linked
// SENDs in flight (IOSQE_IO_LINK keeps them in order on the wire); each SEND carries a GSO batch
// of up to 64 datagrams (UDP_SEGMENT) or, without GSO, one datagram. Headers are stamped when a
// chain is armed; a send the kernel refuses leaves its sequence numbers unused.
// Count mode (-n N): a flow's chains stop at N datagrams; then its end markers (end_marker.hh)
// leave as plain sends outside the ring, and the flow is done (on_flow_done).
#pragma once

#include <vector>

#include "base/unique_fd.hh"
#include "engine/backend/data_worker.hh"
#include "engine/udp/flow_registry.hh"
#include "io_backends/common/io_buffer.hh"
#include "io_backends/common/pacer.hh"
#include "io_backends/common/udp_flows.hh"
#include "io_backends/common/udp_sender_base.hh"
#include "io_backends/uring/probe.hh"
#include "io_backends/uring/ring.hh"

namespace xttcp {

struct UringUdpFlow : UdpSenderFlow {
  uint32_t in_flight = 0;    // sends of the current chain not completed yet
  uint64_t chain_first = 0;  // sequence of the chain's first datagram
  uint32_t chain_sent = 0;   // datagrams of the chain the kernel took so far
  bool refused = false;      // the chain met ECONNREFUSED
};

class UringUdpSender final : public DataWorker, private UdpSenderBase<UringUdpFlow> {
 public:
  UringUdpSender(const WorkerContext& context, const UringCapabilities& caps)
      : UdpSenderBase(context), caps_(caps) {}
  Status open() override;
  void run(const std::atomic<bool>& stop) override;
  WorkerReport finish() override;

 private:
  using Flow = UringUdpFlow;

  void arm_chain(uint32_t index, uint32_t datagrams_per_send);
  template <bool Paced>
  void on_completion(const io_uring_cqe& cqe, Pacer& pacer, uint32_t per_send);
  template <bool Paced>
  void send_loop(const std::atomic<bool>& stop, Pacer& pacer, uint32_t per_send);
  void cancel_and_drain();
  unsigned char* region(uint32_t flow, uint32_t send) {
    return buffer_.data() + (static_cast<std::size_t>(flow) * depth_ + send) * region_bytes_;
  }

  UringCapabilities caps_;
  IoBuffer buffer_;  // per flow, depth_ regions of batch_ datagrams
  std::size_t region_bytes_ = 0;
  uint32_t batch_ = 1;  // datagrams per send (GSO) or 1
  uint32_t depth_ = 1;  // linked sends per chain
  bool stopping_ = false;
  uint32_t in_flight_ = 0;
  Ring ring_;  // after the buffer and sockets: torn down before them
};

}  // namespace xttcp
