// epoll UDP receiver: one bound UDP socket per port of its worker, read with recvmmsg batches.
// With UDP_GRO a buffer may hold several coalesced datagrams (their size comes in a cmsg); each
// is accounted on its own: native datagrams by flow and sequence (udp::SequenceTracker), others
// (NTTTCP's payload) by count. Without GRO, --skip-rx-copy reads only the header (MSG_TRUNC).
#pragma once

#include <sys/socket.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/net/unique_fd.hh"
#include "engine/udp/flow_registry.hh"
#include "engine/udp/sequence_tracker.hh"
#include "io_backends/backend.hh"
#include "io_backends/common/io_buffer.hh"

namespace xttcp {

class EpollUdpReceiver final : public DataWorker {
 public:
  explicit EpollUdpReceiver(const WorkerContext& context) : context_(context) {}
  Status open() override;
  void run(const std::atomic<bool>& stop) override;
  WorkerReport finish() override;

 private:
  struct Tracked {
    uint32_t flow_id = 0;
    std::unique_ptr<udp::SequenceTracker> tracker;
  };
  struct Socket {
    UniqueFd fd;
    uint32_t slot = 0;
    bool seen_data = false;
    std::vector<Tracked> flows;  // few per port: a linear search with a last-hit cache
    uint32_t last = 0;
    std::unique_ptr<udp::SequenceTracker> compat;  // datagrams without xttcp's header
  };

  // Reads until the socket is empty or a fairness budget is spent; true if it may have more.
  bool drain(Socket& socket);
  void account(Socket& socket, const unsigned char* data, std::size_t available,
               std::size_t length, uint64_t now_ns);
  udp::SequenceTracker& tracker_for(Socket& socket, uint32_t flow_id);

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
