// epoll sender: connects every flow of its worker, then writes full buffers of 'A' round-robin
// over its writable connections; waits in epoll_wait only when all of them are full. A worker
// with one connection (and no zero-copy) blocks in send() instead.
#pragma once

#include <sys/socket.h>

#include "base/unique_fd.hh"
#include "engine/backend/data_worker.hh"
#include "io_backends/common/io_buffer.hh"
#include "io_backends/common/tcp_sender_base.hh"

namespace xttcp {

struct EpollSendConnection : TcpSendConnection {
  bool writable = true;
};

class EpollSender final : public DataWorker, private TcpSenderBase<EpollSendConnection> {
 public:
  explicit EpollSender(const WorkerContext& context) : TcpSenderBase(context) {}
  Status open() override;
  void run(const std::atomic<bool>& stop) override;
  WorkerReport finish() override;

 private:
  using Connection = EpollSendConnection;

  template <bool Paced, bool Budgeted>
  void send_loop(const std::atomic<bool>& stop);
  // The connection leaves the epoll set: its budget was sent (count mode) or a send failed.
  void flow_done(Connection& connection);
  void on_send_error(Connection& connection, int err);
  // --zerocopy: reads completions of one connection; with =auto, may switch to plain sends.
  void collect_zerocopy(Connection& connection);

  UniqueFd epoll_;
  IoBuffer buffer_;
  int send_flags_ = MSG_NOSIGNAL;  // | MSG_ZEROCOPY while zero-copy is on
  bool blocking_ = false;          // one connection, blocking sends (open())
};

}  // namespace xttcp
