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

namespace xttcp {

class EpollUdpSender final : public DataWorker {
 public:
  explicit EpollUdpSender(const WorkerContext& context) : context_(context) {}
  Status open() override;
  void run(const std::atomic<bool>& stop) override;
  WorkerReport finish() override;

 private:
  struct Flow : UdpSenderFlow {
    bool writable = true;
  };

  template <bool Paced>
  void send_loop(const std::atomic<bool>& stop, Pacer& pacer, uint32_t burst);
  // Sends up to `count` datagrams on `flow`; returns how many left (0 on EAGAIN or error).
  uint32_t send_batch(Flow& flow, uint32_t count);
  void stamp(const Flow& flow, uint32_t count);
  void record_error(const std::string& what);
  // Count mode: the end markers that are due; a flow whose last marker left is done.
  void flow_done(Flow& flow);

  const WorkerContext& context_;
  UniqueFd epoll_;
  std::vector<Flow> flows_;
  IoBuffer buffer_;             // batch_ datagrams back to back
  std::vector<mmsghdr> messages_;
  std::vector<iovec> iovecs_;
  uint32_t datagram_ = 0;       // bytes per datagram
  uint32_t batch_ = 1;          // datagrams per send
  uint32_t gso_segments_ = 0;   // > 0: GSO sends of that many datagrams
  bool native_ = true;
  uint64_t budget_ = 0;         // count mode: datagrams per flow (N); 0 = timed
  uint32_t ending_ = 0;         // count mode: flows sending their end markers
  uint64_t refused_ = 0;        // sends answered by ICMP port unreachable
  WorkerReport report_;
};

}  // namespace xttcp
