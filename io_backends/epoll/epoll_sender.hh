// epoll sender: connects every flow of its worker, then writes full buffers of 'A' round-robin
// over its writable connections; waits in epoll_wait only when all of them are full.
#pragma once

#include <sys/socket.h>

#include <string>
#include <vector>

#include "base/unique_fd.hh"
#include "engine/backend/data_worker.hh"
#include "io_backends/common/io_buffer.hh"

namespace xttcp {

class EpollSender final : public DataWorker {
 public:
  explicit EpollSender(const WorkerContext& context) : context_(context) {}
  Status open() override;
  void run(const std::atomic<bool>& stop) override;
  WorkerReport finish() override;

 private:
  struct Connection {
    UniqueFd fd;
    uint32_t slot = 0;
    bool writable = true;
    bool closed = false;
    uint64_t left = 0;  // count mode: bytes still to send
    ZeroCopyStats zerocopy;
  };

  template <bool Paced, bool Budgeted>
  void send_loop(const std::atomic<bool>& stop);
  // Count mode: the connection sent its budget; shut its sending side down (the receiver sees
  // the end) and tell the engine.
  void flow_done(Connection& connection);
  void on_send_error(Connection& connection, int err);
  // --zerocopy: reads completions of one connection; with =auto, may switch to plain sends.
  void collect_zerocopy(Connection& connection);

  const WorkerContext& context_;
  UniqueFd epoll_;
  std::vector<Connection> connections_;
  IoBuffer buffer_;
  int send_flags_ = MSG_NOSIGNAL;  // | MSG_ZEROCOPY while zero-copy is on
  ZeroCopyStats zerocopy_total_;
  WorkerReport report_;
};

}  // namespace xttcp
