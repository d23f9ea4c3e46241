// io_uring UDP receiver: one bound UDP socket per port of its worker, each read by a multishot
// RECVMSG into a provided-buffer ring (the kernel writes an io_uring_recvmsg_out header, the
// UDP_GRO cmsg and the payload into each buffer). UdpSocketAccounting counts every datagram of a
// GRO train. Without GRO, --skip-rx-copy lets the kernel copy only the header (MSG_TRUNC); a
// socket whose large datagrams GRO never coalesces drops GRO and does the same.
#pragma once

#include <sys/socket.h>

#include "base/unique_fd.hh"
#include "engine/backend/data_worker.hh"
#include "io_backends/common/udp_receiver_base.hh"
#include "io_backends/uring/buffer_ring.hh"
#include "io_backends/uring/probe.hh"
#include "io_backends/uring/ring.hh"

namespace xttcp {

class UringUdpReceiver final : public DataWorker, private UdpReceiverBase {
 public:
  UringUdpReceiver(const WorkerContext& context, const UringCapabilities& caps)
      : UdpReceiverBase(context), caps_(caps) {}
  Status open() override;
  void run(const std::atomic<bool>& stop) override;
  WorkerReport finish() override;

 private:
  void arm(uint32_t index);
  void cancel_receive(uint32_t index);  // its completion without F_MORE re-arms it
  static SocketAddress source_of(io_uring_recvmsg_out& out);
  void on_completion(const io_uring_cqe& cqe);
  void reap();

  UringCapabilities caps_;
  msghdr template_{};  // what each multishot RECVMSG fills: no name, one cmsg slot
  uint32_t armed_ = 0;
  bool stopping_ = false;
  uint64_t turn_ns_ = 0;       // iperf2: the steady clock as this turn of the loop began
  BufferRing full_buffers_;    // group 0: a whole datagram or GRO train per buffer
  BufferRing header_buffers_;  // group 1 (--skip-rx-copy): header-only reads
  Ring ring_;                  // after the buffers and sockets: torn down before them
};

}  // namespace xttcp
