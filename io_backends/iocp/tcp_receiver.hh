// iocp TCP receiver: one listening socket per port of its worker, AcceptEx kept outstanding on
// each (any number of connections, like the epoll receiver), and on every accepted connection
// N overlapped WSARecv of -b bytes, reposted as they complete. Counts every byte per port;
// with -d checks that each one is 'A'.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io_backends/common/accept_failure.hh"
#include "io_backends/iocp/iocp_worker.hh"
#include "io_backends/iocp/overlapped_socket.hh"
#include "io_backends/iocp/winsock_extensions.hh"

namespace xttcp::iocp {

class TcpReceiver final : public IocpWorker {
 public:
  explicit TcpReceiver(const WorkerContext& context) : IocpWorker(context) {}
  ~TcpReceiver() override;
  Status open() override;
  void run(const std::atomic<bool>& stop) override;
  WorkerReport finish() override;

 private:
  struct Connection;
  struct AcceptRequest;
  struct Listener {
    OverlappedSocket socket;
    uint32_t slot = 0;
    uint16_t port = 0;
    bool skips_port = false;  // synchronous successes complete inline
    bool accepting = true;    // false after a lasting accept failure (not a shortage)
    // Out of sockets or buffers (WSAEMFILE, WSAENOBUFS): no AcceptEx is started until
    // rest.due(); the requests it could not start wait in `parked`.
    ListenerRest rest;
    std::vector<AcceptRequest*> parked;
  };
  // Room AcceptEx needs for each address: the largest sockaddr plus 16 bytes.
  static constexpr DWORD accept_address_room = sizeof(sockaddr_storage) + 16;
  struct AcceptRequest {
    OVERLAPPED overlapped{};  // first: a completion hands back its address
    uint32_t listener = 0;
    OverlappedSocket accepted;
    unsigned char addresses[2 * accept_address_room] = {};
  };
  struct ReceiveRequest {
    OVERLAPPED overlapped{};  // first
    Connection* connection = nullptr;
    unsigned char* data = nullptr;
    bool busy = false;
    uint64_t started = 0;  // -lm: CallTimer stamp taken just before the call that started it
  };
  struct Connection {
    OverlappedSocket socket;
    uint32_t slot = 0;
    uint32_t index = 0;  // in connections_
    bool skips_port = false;
    bool open = true;    // false once the peer closed it or it failed
    bool ended = false;  // the peer closed its side; the socket stays until the rest complete
    uint32_t busy = 0;   // requests pending or queued; freed when closed and 0
    uint64_t bytes = 0;
    std::string local, remote;
    // io.count_reads: watched for its tally, where its receives are counted, until it goes
    // (leave_watch: the tally's last counts are kept in read_sizes).
    uint32_t watch_id = ConnectionWatch::not_watched;
    StreamTally* tally = nullptr;
    std::optional<uint64_t> stream;
    std::optional<ReadSizes> read_sizes;
    std::unique_ptr<unsigned char[]> buffers;
    std::vector<ReceiveRequest> requests;  // never resized: the kernel holds their addresses
  };

  void post_accept(AcceptRequest& request);
  // `request` could not start for want of sockets or buffers (`code`): its listener rests.
  void rest_listener(AcceptRequest& request, int code);
  void resume_rested_listeners();
  DWORD wait_ms() const;  // max_wait_ms, or less to wake when a resting listener is due
  void on_accept_completion(AcceptRequest& request, int error);
  void start_connection(OverlappedSocket socket, const Listener& listener);
  void post_receive(ReceiveRequest& request);
  void on_receive_completion(ReceiveRequest& request, DWORD bytes, int error);
  void consume(Connection& connection, const unsigned char* data, DWORD bytes);
  void close_connection(Connection& connection, int error);
  void release_request(ReceiveRequest& request);
  void drop_reference(Connection& connection);
  void record_stats(const Connection& connection);
  // Before its socket closes: out of the connection watch, its tally's counts kept.
  void leave_watch(Connection& connection);
  void dispatch(const OVERLAPPED_ENTRY& entry);
  void post_queued();
  void shut_down();  // cancels everything and drains the port (bounded)

  AcceptExFunction accept_ex_;
  std::vector<Listener> listeners_;
  std::vector<std::unique_ptr<AcceptRequest>> accepts_;
  std::vector<std::unique_ptr<Connection>> connections_;
  std::vector<uint32_t> free_;                  // reusable indexes in connections_
  std::vector<AcceptRequest*> queued_accepts_;  // over the inline budget: start next turn
  std::vector<ReceiveRequest*> queued_receives_;
  std::vector<ReceiveRequest*> swap_;
  DWORD receive_flags_ = 0;  // MSG_WAITALL with -wa
  SocketOptions options_;
  ReadSizeBinning binning_{1};  // io.count_reads: by -b
};

}  // namespace xttcp::iocp
