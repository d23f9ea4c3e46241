// iocp TCP receiver: one listening socket per port of its worker, AcceptEx kept outstanding on
// each (ListenerSet: any number of connections, like the epoll receiver), and on every accepted
// connection N overlapped WSARecv of -b bytes, reposted as they complete. Counts every byte per
// port; with -d checks that each one is 'A'.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io_backends/iocp/iocp_worker.hh"
#include "io_backends/iocp/listener_set.hh"
#include "io_backends/iocp/overlapped_socket.hh"

namespace xttcp::iocp {

class TcpReceiver final : public IocpWorker {
 public:
  explicit TcpReceiver(const WorkerContext& context);
  ~TcpReceiver() override;
  Status open() override;
  void run(const std::atomic<bool>& stop) override;
  WorkerReport finish() override;

 private:
  struct Connection;
  struct ReceiveRequest {
    OVERLAPPED overlapped{};  // first: a completion hands back its address
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
    bool ended = false;  // its stream is over (the peer closed or reset it, or it failed)
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

  void start_connection(OverlappedSocket socket, const ListenerSet::Listener& listener);
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

  ListenerSet listeners_;
  std::vector<std::unique_ptr<Connection>> connections_;
  std::vector<uint32_t> free_;                    // reusable indexes in connections_
  std::vector<ReceiveRequest*> queued_receives_;  // over the inline budget: start next turn
  std::vector<ReceiveRequest*> swap_;
  DWORD receive_flags_ = 0;  // MSG_WAITALL with -wa
  SocketOptions options_;
  ReadSizeBinning binning_{1};  // io.count_reads: by -b
  uint64_t resets_ = 0;         // connections the peer ended with a reset
};

}  // namespace xttcp::iocp
