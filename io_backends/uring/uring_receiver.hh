// io_uring receiver: one listening socket per port of its worker, accepted with a multishot
// accept; every connection gets a multishot recv that picks buffers from one provided-buffer
// ring per worker, each buffer recycled as soon as its bytes are counted. Without multishot or
// buffer rings (probe), or with --skip-rx-copy (MSG_TRUNC), single-shot recvs re-armed per
// completion. One port (layout.one_port): no listener; the connections the control plane made
// (WorkerContext::adopted), or those the sync listener hands over while the test runs (a poll
// on the ConnectionInbox), are served the same way.
#pragma once

#include "base/unique_fd.hh"
#include "engine/backend/data_worker.hh"
#include "io_backends/common/io_buffer.hh"
#include "io_backends/common/tcp_receiver_base.hh"
#include "io_backends/uring/buffer_ring.hh"
#include "io_backends/uring/probe.hh"
#include "io_backends/uring/ring.hh"

namespace xttcp {

enum class UringRecvMode {
  multishot,  // multishot recv + provided-buffer ring
  single,     // one recv per completion into a per-worker buffer
  truncate,   // --skip-rx-copy: recv(MSG_TRUNC), TCP discards without copying
};

struct UringListener : TcpListener {
  bool armed = false;  // an accept is live (none while resting)
};
struct UringReceiveConnection : TcpReceiveConnection {
  bool armed = false;  // a receive is live: the slot is reused once it has ended
};

class UringReceiver final : public DataWorker,
                            private TcpReceiverBase<UringListener, UringReceiveConnection> {
 public:
  UringReceiver(const WorkerContext& context, const UringCapabilities& caps);
  Status open() override;
  void run(const std::atomic<bool>& stop) override;
  WorkerReport finish() override;

  UringRecvMode mode() const { return mode_; }

 private:
  using Listener = UringListener;
  using Connection = UringReceiveConnection;

  template <bool CountReads>
  void run_mode(const std::atomic<bool>& stop);
  // Instantiated per mode, with and without counting each receive's size (io.count_reads).
  template <UringRecvMode Mode, bool CountReads>
  void receive_loop(const std::atomic<bool>& stop);
  template <UringRecvMode Mode, bool CountReads>
  void on_completion(const io_uring_cqe& cqe);
  template <UringRecvMode Mode>
  void on_accept(uint32_t listener, const io_uring_cqe& cqe);
  template <UringRecvMode Mode>
  void arm_recv(uint32_t index);
  // A connection that joined (accepted, adopted or handed over): its receive armed, announced.
  template <UringRecvMode Mode>
  void serve(uint32_t index);
  void arm_accept(uint32_t listener);
  // One port: a single-shot poll for the inbox's wake signal, armed again after each.
  void arm_inbox();
  template <UringRecvMode Mode>
  void take_inbox_mail();
  template <UringRecvMode Mode>
  void on_inbox(const io_uring_cqe& cqe);
  // Listeners whose rest is over get their accept again.
  void resume_listeners();
  void close_connection(uint32_t index, int err);
  template <UringRecvMode Mode, bool CountReads>
  void cancel_and_drain();

  UringCapabilities caps_;
  UringRecvMode mode_ = UringRecvMode::multishot;
  IoBuffer buffer_;       // single-shot receives (and MSG_TRUNC's address, never written)
  BufferRing buffers_;    // multishot receives
  bool bundles_ = false;  // multishot receives fill several buffers per CQE
  Ring ring_;             // declared after the buffers and sockets: torn down first
  uint32_t armed_ = 0;    // requests that will still complete (accepts, recvs, the inbox poll)
  // One port: connections come handed over (the inbox), not made before the test (adopted).
  bool serves_inbox_ = false;
  bool inbox_armed_ = false;
  // The inbox's poll failed (or found no SQE): the inbox is read every turn of the loop
  // instead (it wakes at least every ring_wait_ns), so no handed connection waits unread.
  bool inbox_unpolled_ = false;
  bool stopping_ = false;
  ReadSizeBinning binning_{1};  // io.count_reads: by -l
};

}  // namespace xttcp
