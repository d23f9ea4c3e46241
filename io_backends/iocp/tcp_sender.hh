// iocp TCP sender: ConnectEx to every flow of its worker, then on each connection N overlapped
// WSASend of -b bytes of 'A', reposted as they complete (paced by -B / -thr when asked). At the
// end it lets the posted sends finish, so every byte it counted is a byte the receiver can read,
// and shuts the connections down gracefully.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/stats/call_timer.hh"
#include "io_backends/backend.hh"
#include "io_backends/iocp/iocp_port.hh"
#include "io_backends/iocp/overlapped_socket.hh"
#include "io_backends/iocp/send_pacer.hh"

namespace xttcp::iocp {

class TcpSender final : public DataWorker {
 public:
  explicit TcpSender(const WorkerContext& context)
      : context_(context), timer_(context.latency_period) {}
  ~TcpSender() override;
  Status open() override;
  void run(const std::atomic<bool>& stop) override;
  WorkerReport finish() override;

 private:
  struct Connection;
  struct SendRequest {
    OVERLAPPED overlapped{};  // first: a completion hands back its address
    Connection* connection = nullptr;
    uint64_t started = 0;  // -lm: CallTimer stamp taken just before the call that started it
  };
  struct Connection {
    OverlappedSocket socket;
    uint32_t slot = 0;
    bool skips_port = false;
    bool open = true;  // false once the peer went away or a send failed
    bool done = false;  // count mode: its budget was sent and its sending side shut down
    uint64_t unposted = 0;  // count mode: budget bytes no send has taken yet
    uint64_t uncounted = 0;  // count mode: budget bytes not yet completed
    std::string local, remote;
    std::vector<SendRequest> requests;  // never resized: the kernel holds their addresses
  };

  template <bool Paced>
  void post_send(SendRequest& request);
  template <bool Paced>
  void send_loop(const std::atomic<bool>& stop);
  template <bool Paced>
  void on_send_completion(const OVERLAPPED_ENTRY& entry);
  void close_connection(Connection& connection, int error);
  // Counts `bytes` sent on `connection` by the send started at `started` (-lm: timed); in count
  // mode, ends the flow at its budget.
  void count_sent(Connection& connection, uint64_t bytes, uint64_t started);
  // Waits (bounded) until the kernel holds no send; completions are counted, not reposted.
  void wait_for_sends(DWORD timeout_ms);
  void shut_down();  // cancels what is left and drains the port (bounded)
  void record_error(const std::string& message);

  const WorkerContext& context_;
  const CallTimer timer_;  // -lm: each send from WSASend to its completion
  CompletionPort port_;  // first member: destroyed after every socket
  std::vector<std::unique_ptr<Connection>> connections_;
  std::unique_ptr<unsigned char[]> buffer_;  // -b bytes of 'A', shared by every send
  ULONG length_ = 0;
  SendPacer pacer_;
  std::vector<SendRequest*> queued_;  // waiting for the pacer or past the inline budget
  std::vector<SendRequest*> swap_;
  uint64_t pending_ = 0;      // sends the kernel holds
  uint32_t outstanding_ = 2;  // sends per connection
  uint64_t budget_ = 0;       // count mode: bytes per connection (flow_send_budget); 0 = timed
  bool opened_ = false;       // open() succeeded: run() has something to send on
  bool stopping_ = false;
  bool shut_down_ = false;
  bool leak_ = false;  // the kernel kept some sends past the drain: their memory is never freed
  WorkerReport report_;
};

}  // namespace xttcp::iocp
