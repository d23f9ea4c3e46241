// iocp UDP receiver: one bound UDP socket per port of its worker, each with N overlapped
// WSARecvFrom of a full-size datagram buffer in flight, reposted as they complete. Every datagram
// feeds the run's per-flow accounting (loss, reordering, duplicates, jitter), its receive time
// read from the steady clock (Windows has no SO_TIMESTAMPNS).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "io_backends/backend.hh"
#include "io_backends/iocp/datagram_accounting.hh"
#include "io_backends/iocp/iocp_port.hh"
#include "io_backends/iocp/overlapped_socket.hh"

namespace xttcp::iocp {

class UdpReceiver final : public DataWorker {
 public:
  explicit UdpReceiver(const WorkerContext& context) : context_(context) {}
  ~UdpReceiver() override;
  Status open() override;
  void run(const std::atomic<bool>& stop) override;
  WorkerReport finish() override;

 private:
  struct Socket;
  struct ReceiveRequest {
    OVERLAPPED overlapped{};  // first: a completion hands back its address
    Socket* socket = nullptr;
    unsigned char* data = nullptr;
    DWORD flags = 0;  // in and out of WSARecvFrom: must live as long as the operation
  };
  struct Socket {
    OverlappedSocket socket;
    uint32_t slot = 0;
    uint16_t port = 0;
    bool skips_port = false;
    bool open = true;
    bool seen_data = false;  // the first datagram starts the -N clock
    std::unique_ptr<DatagramAccounting> accounting;
    std::unique_ptr<unsigned char[]> buffers;
    std::vector<ReceiveRequest> requests;  // never resized: the kernel holds their addresses
  };

  void post_receive(ReceiveRequest& request);
  void on_receive_completion(const OVERLAPPED_ENTRY& entry);
  void consume(Socket& socket, const unsigned char* data, DWORD bytes);
  // false: the socket failed (recorded); true: go on (a stray ICMP error is ignored).
  bool on_receive_error(Socket& socket, int error);
  void shut_down();

  const WorkerContext& context_;
  CompletionPort port_;  // first member: destroyed after every socket
  std::vector<std::unique_ptr<Socket>> sockets_;
  std::vector<ReceiveRequest*> queued_;  // past the inline budget: start next turn
  std::vector<ReceiveRequest*> swap_;
  uint64_t pending_ = 0;
  uint32_t outstanding_ = 2;
  bool stopping_ = false;
  bool shut_down_ = false;
  bool leak_ = false;
  WorkerReport report_;
};

}  // namespace xttcp::iocp
