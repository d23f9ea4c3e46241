// epoll UDP receiver: one bound UDP socket per port of its worker, read with recvmmsg batches.
// With UDP_GRO a buffer may hold several coalesced datagrams (their size comes in a cmsg);
// UdpSocketAccounting counts each. Without GRO, --skip-rx-copy reads only the header (MSG_TRUNC).
#pragma once

#include <sys/socket.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/net/unique_fd.hh"
#include "io_backends/backend.hh"
#include "io_backends/common/udp_flows.hh"
#include "io_backends/common/io_buffer.hh"

namespace xttcp {

class EpollUdpReceiver final : public DataWorker {
 public:
  explicit EpollUdpReceiver(const WorkerContext& context) : context_(context) {}
  Status open() override;
  void run(const std::atomic<bool>& stop) override;
  WorkerReport finish() override;

 private:
  using Socket = UdpReceiverSocket;

  // Reads until the socket is empty or a fairness budget is spent; true if it may have more.
  bool drain(Socket& socket);

  const WorkerContext& context_;
  UniqueFd epoll_;
  std::vector<Socket> sockets_;
  IoBuffer buffers_;
  std::size_t buffer_size_ = 0;
  std::vector<mmsghdr> messages_;
  std::vector<iovec> iovecs_;
  std::vector<unsigned char> control_;  // one cmsg slot per message (UDP_GRO)
  bool gro_ = false;
  int recv_flags_ = 0;
  WorkerReport report_;
};

}  // namespace xttcp
