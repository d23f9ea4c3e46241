// io_uring UDP receiver: one bound UDP socket per port of its worker, each read by a multishot
// RECVMSG into a provided-buffer ring (the kernel writes an io_uring_recvmsg_out header, the
// UDP_GRO cmsg and the payload into each buffer). UdpSocketAccounting counts every datagram of a
// GRO train. Without GRO, --skip-rx-copy lets the kernel copy only the header (MSG_TRUNC); a
// socket whose large datagrams GRO never coalesces drops GRO and does the same.
#pragma once

#include <sys/socket.h>

#include <memory>
#include <string>
#include <vector>

#include "base/unique_fd.hh"
#include "engine/backend/data_worker.hh"
#include "io_backends/common/udp_flows.hh"
#include "io_backends/uring/buffer_ring.hh"
#include "io_backends/uring/probe.hh"
#include "io_backends/uring/ring.hh"

namespace xttcp {

class UringUdpReceiver final : public DataWorker {
 public:
  UringUdpReceiver(const WorkerContext& context, const UringCapabilities& caps)
      : context_(context), caps_(caps) {}
  Status open() override;
  void run(const std::atomic<bool>& stop) override;
  WorkerReport finish() override;

 private:
  using Socket = UdpReceiverSocket;

  void arm(uint32_t index);
  void note_coalescing(uint32_t index, std::size_t length, std::size_t segment);
  bool admitted_source(io_uring_recvmsg_out& out) const;  // --allow
  void on_completion(const io_uring_cqe& cqe);
  void reap();

  const WorkerContext& context_;
  UringCapabilities caps_;
  std::vector<Socket> sockets_;
  msghdr template_{};  // what each multishot RECVMSG fills: no name, one cmsg slot
  bool gro_ = false;
  bool skip_copy_ = true;  // --skip-rx-copy
  bool switched_note_ = false;
  uint32_t armed_ = 0;
  bool stopping_ = false;
  BufferRing full_buffers_;    // group 0: a whole datagram or GRO train per buffer
  BufferRing header_buffers_;  // group 1 (--skip-rx-copy): header-only reads
  Ring ring_;  // after the buffers and sockets: torn down before them
  WorkerReport report_;
};

}  // namespace xttcp
