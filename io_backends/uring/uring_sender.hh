// io_uring sender: connects every flow of its worker, then keeps exactly one request in flight
// per connection, re-armed on its completion. All re-arms of a batch go to the kernel in one
// io_uring_enter, which also waits (<= 100 ms). The send is, best first: a SEND bundle that takes
// ~1 MiB of write-sized slots of a per-connection send ring in one sendmsg (Linux 6.10, unpaced
// runs, few connections: SendRing::entries_for); a SEND (or SEND_ZC with --zerocopy) of one
// registered buffer of 'A'.
// The counters trail what the kernel took by at most max_sends_per_enter sends per worker (the
// bytes of the sends issued in one io_uring_enter, counted when it returns): a single-buffer
// send is MSG_DONTWAIT, so it completes at once with what fitted (possibly nothing: -EAGAIN), and
// the connection then waits in a POLL_ADD for room; connections with room wait their turn in a
// queue, at most max_sends_per_enter of them per enter. A bundle is sent whole (the kernel makes
// it MSG_WAITALL) and counted then, so bundles are used only while their slots stay within
// SendRing::hidden_bytes_budget. Before, every connection's send (or ~1 MiB bundle) went in
// at once and waited in the kernel's own poll-and-retry: with 10,000 connections the counters
// missed gigabytes at the window's edges.
// Count mode (-n): each connection sends exactly N x -l bytes, one buffer per send (a bundle
// takes whole ring slots and cannot stop at a byte count), then shuts its sending side down.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "base/unique_fd.hh"
#include "engine/backend/data_worker.hh"
#include "io_backends/common/io_buffer.hh"
#include "io_backends/common/pacer.hh"
#include "io_backends/common/tcp_sender_base.hh"
#include "io_backends/uring/probe.hh"
#include "io_backends/uring/ring.hh"
#include "io_backends/uring/send_ring.hh"

namespace xttcp {

// How the sender sends, decided by the backend from --zerocopy and the probe.
enum class UringSendMode {
  plain,
  zerocopy,       // --zerocopy=on: SEND_ZC for the whole run
  zerocopy_auto,  // --zerocopy=auto: SEND_ZC, plain send once nearly every send was copied
};

struct UringSendConnection : TcpSendConnection {
  uint64_t in_flight = 0;  // user_data of the send (or poll) in flight, 0 = none
};

class UringSender final : public DataWorker, private TcpSenderBase<UringSendConnection> {
 public:
  UringSender(const WorkerContext& context, const UringCapabilities& caps, UringSendMode mode,
              std::vector<std::string> notes);
  ~UringSender() override;
  Status open() override;
  void run(const std::atomic<bool>& stop) override;
  WorkerReport finish() override;

  // --zerocopy=auto's rule: after `min_notifications` notifications (or once a second has
  // passed with some), fall back when at least 95 % were copied (mostly_copied(),
  // common/zerocopy_errqueue.hh).
  static constexpr uint64_t min_notifications = 1000;
  // Sends issued per io_uring_enter: what the counters may trail the kernel by, in sends.
  static constexpr uint32_t max_sends_per_enter = 64;

 private:
  using Connection = UringSendConnection;
  enum class LoopEnd { stopped, switch_to_plain, failed };
  enum class Kind { plain, bundle, zerocopy };  // what one armed send is

  template <bool Paced, Kind K>
  LoopEnd send_loop(const std::atomic<bool>& stop, Pacer& pacer);
  template <bool Paced, Kind K>
  void on_completion(const io_uring_cqe& cqe, Pacer& pacer);
  template <Kind K>
  void arm(uint32_t index);
  // The send found no room (-EAGAIN): wait for POLLOUT, then send again.
  void arm_poll(uint32_t index);
  // The connection may send: it joins the queue (one entry per connection at most).
  void queue_send(uint32_t index);
  // Arms the sends of up to max_sends_per_enter queued connections.
  template <Kind K>
  void arm_queued();
  template <bool Paced>
  LoopEnd plain_loop(const std::atomic<bool>& stop, Pacer& pacer);
  Status open_send_rings();
  bool auto_fallback_due();
  void cancel_and_drain();
  void wait_for_notifications();

  UringCapabilities caps_;
  UringSendMode mode_;
  std::unique_ptr<IoBuffer> buffer_;  // leaked on purpose if the kernel still holds it
  bool registered_buffer_ = false;
  std::vector<SendRing> send_rings_;  // one per connection when bundles are used, else empty
  Ring ring_;  // declared after the buffer and sockets: torn down before them
  uint32_t in_flight_ = 0;
  std::vector<uint32_t> queue_;  // a ring of connections waiting to send, sized once
  size_t queue_head_ = 0, queued_ = 0;
  uint64_t pending_notifications_ = 0;
  bool stopping_ = false;
  bool auto_decided_ = false;
  std::chrono::steady_clock::time_point zerocopy_started_;  // --zerocopy=auto's clock
};

}  // namespace xttcp
