#include "io_backends/uring/uring_sender.hh"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "engine/count_mode.hh"
#include "io_backends/common/zerocopy_errqueue.hh"
#include "io_backends/send_rate.hh"
#include "io_backends/uring/compat.hh"
#include "io_backends/uring/user_data.hh"

namespace xttcp {

namespace {

constexpr auto notification_budget = std::chrono::seconds(1);
constexpr auto auto_decision_time = std::chrono::seconds(1);

}  // namespace

UringSender::UringSender(const WorkerContext& context, const UringCapabilities& caps,
                         UringSendMode mode, std::vector<std::string> notes)
    : TcpSenderBase(context), caps_(caps), mode_(mode) {
  report_.notes = std::move(notes);
}

UringSender::~UringSender() = default;

Status UringSender::open() {
  const TestSpec& spec = *context_.spec;
  buffer_ = std::make_unique<IoBuffer>(spec.workload.send_buffer, 'A');
  if (!*buffer_)
    return fail("cannot allocate a " + std::to_string(spec.workload.send_buffer) + "-byte buffer");

  if (Status opened = open_connections(true); !opened) return opened;
  if (spec.io.outstanding > 0)
    report_.notes.push_back(fmt::format(
        "-a {}: io_uring keeps one send in flight per connection (a bundle of several buffers "
        "where the kernel has them), not {} buffers",
        spec.io.outstanding, spec.io.outstanding));

  const unsigned sq_entries = ring_entries_for(connections_.size() + 1);
  if (Status ring = ring_.init(sq_entries, sq_entries * 4, caps_, spec.uring.sqpoll); !ring)
    return ring.error();
  // Zero-copy sends from a registered buffer skip pinning the pages on every send. Without the
  // registration (RLIMIT_MEMLOCK) SEND_ZC still works from the plain buffer.
  iovec iov{buffer_->data(), buffer_->size()};
  registered_buffer_ = io_uring_register_buffers(ring_.get(), &iov, 1) == 0;
  return open_send_rings();
}

// Bundles send ~1 MiB per submission; a paced run keeps one write per send so the pacer's bursts
// stay write-sized. Buffer groups are 16-bit: one per connection of this worker.
Status UringSender::open_send_rings() {
  const TestSpec& spec = *context_.spec;
  if (mode_ == UringSendMode::zerocopy || sender_worker_rate(spec, connections_.size()) > 0 ||
      flow_send_budget(spec) > 0)
    return ok();
  if (!caps_.bundle || !caps_.buf_ring) {
    report_.notes.push_back("io_uring: send bundles unavailable (" +
                            (caps_.bundle ? caps_.buf_ring_reason : caps_.bundle_reason) +
                            "); one write per send");
    return ok();
  }
  if (connections_.size() > 65536) return ok();
  const uint32_t entries = SendRing::entries_for(spec.workload.send_buffer, connections_.size());
  if (entries == 0) return ok();  // many connections: exact counters beat bigger submissions
  send_rings_.reserve(connections_.size());
  for (size_t i = 0; i < connections_.size(); ++i) {
    SendRing& ring = send_rings_.emplace_back();
    if (Status init = ring.init(entries, buffer_->data(), spec.workload.send_buffer); !init)
      return init.error();
    if (Status reg = ring.register_with(ring_.get(), static_cast<uint16_t>(i)); !reg)
      return reg.error();
  }
  return ok();
}

template <UringSender::Kind K>
void UringSender::arm(uint32_t index) {
  Connection& c = connections_[index];
  io_uring_sqe* sqe = ring_.sqe();
  if (sqe == nullptr) {
    c.closed = true;
    record_error("io_uring: the kernel takes no more submissions");
    return;
  }
  const unsigned char* const data = buffer_->data();
  const size_t length = static_cast<size_t>(std::min<uint64_t>(buffer_->size(), c.left));
  if constexpr (K == Kind::bundle) {
    // len 0: take every published slot (up to 256); the group is the connection's send ring.
    io_uring_prep_send(sqe, c.fd.get(), nullptr, 0, MSG_NOSIGNAL);
    sqe->flags |= IOSQE_BUFFER_SELECT;
    sqe->buf_group = static_cast<uint16_t>(index);
    sqe->ioprio |= IORING_RECVSEND_BUNDLE;
    c.in_flight = uring::pack(index, uring::Op::send_bundle);
  } else if constexpr (K == Kind::zerocopy) {
    if (registered_buffer_)
      io_uring_prep_send_zc_fixed(sqe, c.fd.get(), data, length, MSG_NOSIGNAL | MSG_DONTWAIT,
                                  IORING_SEND_ZC_REPORT_USAGE, 0);
    else
      io_uring_prep_send_zc(sqe, c.fd.get(), data, length, MSG_NOSIGNAL | MSG_DONTWAIT,
                            IORING_SEND_ZC_REPORT_USAGE);
    c.in_flight = uring::pack(index, uring::Op::send_zc);
  } else {
    io_uring_prep_send(sqe, c.fd.get(), data, length, MSG_NOSIGNAL | MSG_DONTWAIT);
    c.in_flight = uring::pack(index, uring::Op::send);
  }
  sqe->user_data = c.in_flight;
  ++in_flight_;
}

void UringSender::queue_send(uint32_t index) {
  queue_[(queue_head_ + queued_) % queue_.size()] = index;
  ++queued_;
}

template <UringSender::Kind K>
void UringSender::arm_queued() {
  for (uint32_t n = 0; n < max_sends_per_enter && queued_ > 0; ++n) {
    const uint32_t index = queue_[queue_head_];
    queue_head_ = (queue_head_ + 1) % queue_.size();
    --queued_;
    if (!connections_[index].closed) arm<K>(index);
  }
}

void UringSender::arm_poll(uint32_t index) {
  Connection& c = connections_[index];
  io_uring_sqe* sqe = ring_.sqe();
  if (sqe == nullptr) {
    c.closed = true;
    record_error("io_uring: the kernel takes no more submissions");
    return;
  }
  io_uring_prep_poll_add(sqe, c.fd.get(), POLLOUT);
  c.in_flight = uring::pack(index, uring::Op::poll_out);
  sqe->user_data = c.in_flight;
  ++in_flight_;
}

template <bool Paced, UringSender::Kind K>
void UringSender::on_completion(const io_uring_cqe& cqe, Pacer& pacer) {
  const uring::Op op = uring::op_of(cqe.user_data);
  if (op == uring::Op::cancel) return;
  const uint32_t index = uring::index_of(cqe.user_data);
  Connection& c = connections_[index];
  if (op == uring::Op::poll_out) {
    // Room (or an error, which the send then reports): send again.
    c.in_flight = 0;
    --in_flight_;
    if (cqe.res != -ECANCELED && !stopping_) queue_send(index);
    return;
  }
  if (op == uring::Op::send_bundle) {
    // A bundle goes on sending while its ring has slots (F_MORE); its last CQE lacks F_MORE.
    const int res = cqe.res;
    if (res > 0) {
      context_.counters[c.slot].add(static_cast<uint64_t>(res));
      send_rings_[index].refill(SendRing::slots_consumed(res, context_.spec->workload.send_buffer));
    }
    if (cqe.flags & IORING_CQE_F_MORE) return;
    c.in_flight = 0;
    --in_flight_;
    if (res >= 0 || res == -ENOBUFS || res == -EINTR || res == -EAGAIN) {
      if (!stopping_) queue_send(index);
      return;
    }
    if (res != -ECANCELED) connection_lost(c, -res);
    return;
  }
  if (op == uring::Op::send_zc) {
    if (cqe.flags & IORING_CQE_F_NOTIF) {
      // The kernel let go of the buffer; res says whether it had copied it after all.
      const bool copied = (static_cast<uint32_t>(cqe.res) & IORING_NOTIF_USAGE_ZC_COPIED) != 0;
      count_zerocopy(c, ZeroCopyStats{0, 1, copied ? 1u : 0u, false});
      --pending_notifications_;
      return;
    }
    ++c.zerocopy.sends;
    ++zerocopy_total_.sends;
    if (cqe.flags & IORING_CQE_F_MORE) ++pending_notifications_;
  }
  c.in_flight = 0;
  --in_flight_;
  const int res = cqe.res;
  if (res >= 0) {
    // A short send counts what the kernel took; the next send starts a fresh buffer (all 'A').
    if (res > 0) context_.counters[c.slot].add(static_cast<uint64_t>(res));
    if constexpr (Paced) pacer.after_write(static_cast<uint64_t>(res));
    c.left -= static_cast<uint64_t>(res);
    if (c.left == 0) return budget_sent(c);  // count mode: the budget was accepted
    if (!stopping_) queue_send(index);
    return;
  }
  if (res == -ECANCELED) return;
  if (res == -EAGAIN) {  // MSG_DONTWAIT: no room in the socket now
    if (!stopping_) arm_poll(index);
    return;
  }
  if (res == -EINTR) {
    if (!stopping_) queue_send(index);
    return;
  }
  connection_lost(c, -res);
}

bool UringSender::auto_fallback_due() {
  using clock = std::chrono::steady_clock;
  if (zerocopy_total_.notifications < min_notifications &&
      (zerocopy_total_.notifications == 0 || clock::now() - zerocopy_started_ < auto_decision_time))
    return false;
  auto_decided_ = true;
  if (!mostly_copied(zerocopy_total_)) return false;
  fall_back_from_zerocopy();
  return true;
}

template <bool Paced, UringSender::Kind K>
UringSender::LoopEnd UringSender::send_loop(const std::atomic<bool>& stop, Pacer& pacer) {
  io_uring* const ring = ring_.get();
  queue_.resize(connections_.size());
  queue_head_ = queued_ = 0;
  for (uint32_t i = 0; i < connections_.size(); ++i)
    if (connections_[i].in_flight == 0 && !connections_[i].closed) queue_send(i);

  while (!stop.load(std::memory_order_relaxed)) {
    arm_queued<K>();
    __kernel_timespec wait{0, ring_wait_ns};
    io_uring_cqe* cqe = nullptr;
    // More connections waiting to send: hand these in and come back at once.
    const int r = queued_ > 0 ? io_uring_submit_and_get_events(ring)
                              : io_uring_submit_and_wait_timeout(ring, &cqe, 1, &wait, nullptr);
    if (r < 0 && r != -ETIME && r != -EINTR && r != -EBUSY && r != -EAGAIN) {
      record_error(std::string("io_uring_enter: ") + std::strerror(-r));
      return LoopEnd::failed;
    }
    ring_.reap([&](io_uring_cqe& done) { on_completion<Paced, K>(done, pacer); });
    if constexpr (K == Kind::zerocopy) {
      if (mode_ == UringSendMode::zerocopy_auto && !auto_decided_ && auto_fallback_due())
        return LoopEnd::switch_to_plain;
    }
  }
  return LoopEnd::stopped;
}

// At stop: cancel the polls still waiting for socket space (a single-buffer send never waits:
// MSG_DONTWAIT) and the bundles under way (a cancelled one reports what it had sent), and reap
// every completion, bounded by ring_drain_budget.
void UringSender::cancel_and_drain() {
  stopping_ = true;
  for (Connection& c : connections_) {
    if (c.in_flight == 0) continue;
    io_uring_sqe* sqe = ring_.sqe();
    if (sqe == nullptr) break;
    io_uring_prep_cancel64(sqe, c.in_flight, 0);
    sqe->user_data = uring::pack(0, uring::Op::cancel);
  }
  Pacer unpaced(0);
  const auto deadline = std::chrono::steady_clock::now() + ring_drain_budget;
  do {
    ring_.submit_and_wait(ring_drain_wait_ns);
    ring_.reap([&](io_uring_cqe& done) { on_completion<false, Kind::plain>(done, unpaced); });
  } while (in_flight_ > 0 && std::chrono::steady_clock::now() < deadline);
}

void UringSender::run(const std::atomic<bool>& stop) {
  const TestSpec& spec = *context_.spec;
  const double rate = sender_worker_rate(spec, connections_.size());  // -B, -thr
  const bool paced = rate > 0;
  Pacer pacer(rate, tcp_pacing_burst_ns);
  if (paced) {
    pacer.set_stop(&stop);
    pacer.start();
  }

  LoopEnd end = LoopEnd::stopped;
  if (mode_ == UringSendMode::plain) {
    end = paced ? plain_loop<true>(stop, pacer) : plain_loop<false>(stop, pacer);
  } else {
    zerocopy_started_ = std::chrono::steady_clock::now();
    end = paced ? send_loop<true, Kind::zerocopy>(stop, pacer)
                : send_loop<false, Kind::zerocopy>(stop, pacer);
    if (end == LoopEnd::switch_to_plain)
      end = paced ? plain_loop<true>(stop, pacer) : plain_loop<false>(stop, pacer);
  }
  if (end != LoopEnd::failed) cancel_and_drain();
}

// Paced runs never have send rings (open_send_rings), so bundles are unpaced only.
template <bool Paced>
UringSender::LoopEnd UringSender::plain_loop(const std::atomic<bool>& stop, Pacer& pacer) {
  if constexpr (!Paced) {
    if (!send_rings_.empty()) return send_loop<false, Kind::bundle>(stop, pacer);
  }
  return send_loop<Paced, Kind::plain>(stop, pacer);
}

// Zero-copy notifications arrive when the kernel lets go of the buffer (on loopback: when the
// data is delivered). Wait for them, bounded, so the counts are complete.
void UringSender::wait_for_notifications() {
  stopping_ = true;
  Pacer unpaced(0);
  const auto deadline = std::chrono::steady_clock::now() + notification_budget;
  while ((pending_notifications_ > 0 || in_flight_ > 0) &&
         std::chrono::steady_clock::now() < deadline) {
    ring_.submit_and_wait(ring_drain_wait_ns);
    ring_.reap([&](io_uring_cqe& done) { on_completion<false, Kind::plain>(done, unpaced); });
  }
  // Still referenced by the kernel (a peer that stopped reading): never free or reuse it.
  if (pending_notifications_ > 0 || in_flight_ > 0) static_cast<void>(buffer_.release());
}

WorkerReport UringSender::finish() {
  if (ring_.valid()) wait_for_notifications();
  return finish_report();
}

}  // namespace xttcp
