// epoll UDP receiver: one bound UDP socket per port of its worker, read with recvmmsg batches.
// With UDP_GRO a buffer may hold several coalesced datagrams (their size comes in a cmsg);
// UdpSocketAccounting counts each. Without GRO, --skip-rx-copy reads only the header (MSG_TRUNC);
// a socket whose large datagrams GRO never coalesces drops GRO and does the same.
#pragma once

#include <sys/socket.h>

#include <vector>

#include "base/unique_fd.hh"
#include "engine/backend/data_worker.hh"
#include "io_backends/common/io_buffer.hh"
#include "io_backends/common/udp_receiver_base.hh"

namespace xttcp {

class EpollUdpReceiver final : public DataWorker, private UdpReceiverBase {
 public:
  explicit EpollUdpReceiver(const WorkerContext& context) : UdpReceiverBase(context) {}
  Status open() override;
  void run(const std::atomic<bool>& stop) override;
  WorkerReport finish() override;

 private:
  // Reads until the socket is empty or a fairness budget is spent; true if it may have more.
  bool drain(Socket& socket);

  UniqueFd epoll_;
  IoBuffer buffers_;
  std::size_t buffer_size_ = 0;
  std::vector<mmsghdr> messages_;
  std::vector<iovec> iovecs_;
  std::vector<unsigned char> control_;  // one cmsg slot per message (UDP_GRO)
  std::vector<SocketAddress> sources_;  // --allow or iperf2: each message's source
};

}  // namespace xttcp
