// epoll receiver: one listening socket per port of its worker; accepts any number of
// connections and counts every byte received, per port.
#pragma once

#include <vector>

#include "base/unique_fd.hh"
#include "engine/backend/data_worker.hh"
#include "io_backends/common/io_buffer.hh"
#include "io_backends/common/tcp_receiver_base.hh"

namespace xttcp {

struct EpollReceiveConnection : TcpReceiveConnection {
  bool queued = false;  // in ready_
  uint16_t port = 0;    // the listener's, for -d's error line
};

// A resting listener is out of the epoll set until its rest is due.
class EpollReceiver final : public DataWorker,
                            private TcpReceiverBase<TcpListener, EpollReceiveConnection> {
 public:
  explicit EpollReceiver(const WorkerContext& context) : TcpReceiverBase(context) {}
  Status open() override;
  void run(const std::atomic<bool>& stop) override;
  WorkerReport finish() override;

 private:
  using Connection = EpollReceiveConnection;

  void accept_all(uint32_t index);
  // A connection just added (accepted on `port`, or adopted: port 0) joins the epoll set.
  void serve_connection(uint32_t index, uint16_t port);
  // Listeners whose rest is over go back into the epoll set; the wait's timeout until the next.
  int resume_listeners(int timeout_ms);
  void close_connection(uint32_t index, int err);
  // The loop, instantiated with and without counting each receive's size (io.count_reads).
  template <bool CountReads>
  void serve(const std::atomic<bool>& stop);
  // Reads until EAGAIN or a fairness budget; true if the connection may still have data.
  template <bool CountReads>
  bool drain(uint32_t index);
  // -d: every byte of data[0, n) must be 'A'; counts an error naming the first that is not.
  void verify(const Connection& connection, const unsigned char* data, size_t n);

  UniqueFd epoll_;
  std::vector<uint32_t> ready_;  // connections with unread data
  IoBuffer buffer_;
  int recv_flags_ = 0;   // MSG_TRUNC with --skip-rx-copy; MSG_WAITALL with -wa
  bool verify_ = false;  // -d
  bool count_reads_ = false;
  ReadSizeBinning binning_{1};  // io.count_reads: by -l
};

}  // namespace xttcp
