// iocp TCP sender: ConnectEx to every flow of its worker, then on each connection N overlapped
// WSASend of -b bytes of 'A', reposted as they complete (paced by -B / -thr when asked). At the
// end it lets the posted sends finish, so every byte it counted is a byte the receiver can read,
// and shuts the connections down gracefully.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "io_backends/iocp/overlapped_socket.hh"
#include "io_backends/iocp/send_worker.hh"

namespace xttcp::iocp {

namespace tcp_send {
struct Connection;
struct SendRequest {
  OVERLAPPED overlapped{};  // first: a completion hands back its address
  Connection* connection = nullptr;
  uint64_t started = 0;  // -lm: CallTimer stamp taken just before the WSASend that started it
};
struct Connection {
  OverlappedSocket socket;
  uint32_t slot = 0;
  bool skips_port = false;
  bool open = true;        // false once the peer went away or a send failed
  bool done = false;       // count mode: its budget was sent and its sending side shut down
  uint64_t unposted = 0;   // count mode: budget bytes no send has taken yet
  uint64_t uncounted = 0;  // count mode: budget bytes not yet completed
  std::string local, remote;
  std::vector<SendRequest> requests;  // never resized: the kernel holds their addresses
};
}  // namespace tcp_send

class TcpSender final : public SendWorker<TcpSender, tcp_send::Connection, tcp_send::SendRequest> {
 public:
  explicit TcpSender(const WorkerContext& context) : SendWorker(context) {}
  ~TcpSender() override;
  Status open() override;
  WorkerReport finish() override;

 private:
  friend SendWorker;
  using Connection = tcp_send::Connection;
  using SendRequest = tcp_send::SendRequest;
  static constexpr const char* sends_name = "sends";

  template <bool Paced>
  void post_send(SendRequest& request);
  template <bool Paced>
  void on_send_completion(const OVERLAPPED_ENTRY& entry);
  void close_connection(Connection& connection, int error);
  // Counts `bytes` sent on `connection` by the send started at `started` (-lm: timed); in count
  // mode, ends the flow at its budget.
  void count_sent(Connection& connection, uint64_t bytes, uint64_t started);

  std::unique_ptr<unsigned char[]> buffer_;  // -b bytes of 'A', shared by every send
  ULONG length_ = 0;
  uint64_t budget_ = 0;  // count mode: bytes per connection (flow_send_budget); 0 = timed
};

}  // namespace xttcp::iocp
