// iocp UDP receiver: one bound UDP socket per port of its worker, each with N overlapped
// WSARecvFrom of a full-size datagram buffer in flight, reposted as they complete. Every datagram
// feeds the run's per-flow accounting (loss, reordering, duplicates, jitter), its receive time
// read from the steady clock (Windows has no SO_TIMESTAMPNS).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/udp/datagram_accounting.hh"
#include "io_backends/iocp/iocp_worker.hh"
#include "io_backends/iocp/overlapped_socket.hh"

namespace xttcp::iocp {

class UdpReceiver final : public IocpWorker {
 public:
  explicit UdpReceiver(const WorkerContext& context) : IocpWorker(context) {}
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
    DWORD flags = 0;      // in and out of WSARecvFrom: must live as long as the operation
    uint64_t ticket = 0;  // its place in the socket's order of receives started
    bool done = false;    // completed, not yet consumed
    DWORD bytes = 0;
    int error = 0;
    uint64_t started = 0;  // -lm: CallTimer stamp taken just before the call that started it
  };
  struct Socket {
    OverlappedSocket socket;
    uint32_t slot = 0;
    uint16_t port = 0;
    bool skips_port = false;
    bool open = true;
    bool seen_data = false;  // the first datagram starts the -N clock
    bool queued = false;     // in queued_
    // Receives are consumed in the order they were started, which is the order the datagrams
    // arrived in (a socket fills its pending receives first come, first served): an inline
    // completion must not overtake one already waiting in the port, or the accounting would
    // see reordering that the network never did. Started receives hold the tickets
    // [head, head + N); ring[ticket % N] is the one holding `ticket`.
    std::vector<ReceiveRequest*> ring;
    uint64_t head = 0;
    uint64_t next_ticket = 0;
    std::unique_ptr<udp::DatagramAccounting> accounting;
    std::unique_ptr<unsigned char[]> buffers;
    std::vector<ReceiveRequest> requests;  // never resized: the kernel holds their addresses
  };

  void start_receive(ReceiveRequest& request);
  void consume_in_order(Socket& socket);
  void on_receive_completion(const OVERLAPPED_ENTRY& entry);
  void consume(Socket& socket, const unsigned char* data, DWORD bytes);
  // false: the socket failed (recorded); true: go on (a stray ICMP error is ignored).
  bool on_receive_error(Socket& socket, int error);
  void shut_down();

  std::vector<std::unique_ptr<Socket>> sockets_;
  std::vector<Socket*> queued_;  // past the inline budget: go on next turn
  std::vector<Socket*> swap_;
};

}  // namespace xttcp::iocp
