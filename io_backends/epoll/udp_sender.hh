// epoll UDP sender: one connected UDP socket per flow. Each send carries a batch of datagrams:
// one UDP_SEGMENT (GSO) sendmsg of up to 64 datagrams where the kernel has it, else one
// sendmmsg of up to 64. In native payload mode every datagram starts with xttcp's header (flow,
// sequence, send time), stamped just before its send; compat mode sends NTTTCP's 'B's.
// -uc: unconnected sockets, every datagram of a sendmmsg names the flow's address (sendto).
// Count mode (-n N): each flow sends N datagrams, then its end markers (end_marker.hh), then
// tells the engine (on_flow_done).
#pragma once

#include <sys/socket.h>

#include <string>
#include <vector>

#include "base/unique_fd.hh"
#include "engine/udp/flow_registry.hh"
#include "engine/backend/data_worker.hh"
#include "io_backends/common/io_buffer.hh"
#include "io_backends/common/udp_flows.hh"
#include "io_backends/common/pacer.hh"
#include "io_backends/common/udp_sender_base.hh"

namespace xttcp {

struct EpollUdpFlow : UdpSenderFlow {
  bool writable = true;
};

class EpollUdpSender final : public DataWorker, private UdpSenderBase<EpollUdpFlow> {
 public:
  explicit EpollUdpSender(const WorkerContext& context) : UdpSenderBase(context) {}
  Status open() override;
  void run(const std::atomic<bool>& stop) override;
  WorkerReport finish() override;

 private:
  using Flow = EpollUdpFlow;

  template <bool Paced>
  void send_loop(const std::atomic<bool>& stop, Pacer& pacer, uint32_t burst);
  // Sends up to `count` datagrams on `flow`; returns how many left (0 on EAGAIN or error).
  uint32_t send_batch(Flow& flow, uint32_t count);
  void stamp(const Flow& flow, uint32_t count);
  // Count mode: the end markers that are due; a flow whose last marker left is done.
  void flow_done(Flow& flow);

  UniqueFd epoll_;
  IoBuffer buffer_;  // batch_ datagrams back to back
  std::vector<mmsghdr> messages_;
  std::vector<iovec> iovecs_;
  uint32_t batch_ = 1;  // datagrams per send
};

}  // namespace xttcp
