#include "io_backends/common/tcp_tuning.hh"
#include "io_backends/uring/uring_receiver.hh"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "engine/stats/call_clock.hh"
#include "io_backends/uring/accepted_admission.hh"
#include "io_backends/uring/compat.hh"
#include "io_backends/uring/user_data.hh"

namespace xttcp {

namespace {

constexpr uint16_t buffer_group = 0;

}  // namespace

UringReceiver::UringReceiver(const WorkerContext& context, const UringCapabilities& caps)
    : TcpReceiverBase(context), caps_(caps) {}

Status UringReceiver::open() {
  const TestSpec& spec = *context_.spec;
  if (spec.io.skip_rx_copy) {
    mode_ = UringRecvMode::truncate;
  } else if (caps_.multishot_rx()) {
    mode_ = UringRecvMode::multishot;
  } else {
    mode_ = UringRecvMode::single;
    report_.notes.push_back(
        "io_uring: multishot receive unavailable (" +
        (caps_.multishot_recv ? caps_.buf_ring_reason : caps_.multishot_reason) +
        "); using single-shot receives");
  }

  follow_rates_ = spec.io.receive_mark;
  binning_ = ReadSizeBinning(spec.workload.recv_buffer);
  // One port: the connections come made (adopted) or handed over (the inbox), not accepted here.
  const bool one_port = !adopted_.empty() || context_.inbox != nullptr;
  serves_inbox_ = context_.inbox != nullptr && adopted_.empty();  // as the epoll receiver
  if (!one_port)
    if (Status opened = open_listeners(true); !opened) return opened;

  const uint32_t ring_buffers =
      mode_ == UringRecvMode::multishot ? BufferRing::entries_for(spec.workload.recv_buffer) : 0;
  const unsigned sq_entries = ring_entries_for(listeners_.size() * 2 + 64);
  // Every connection keeps a receive armed: room for as many completions as the largest queue
  // (an overflow is kept by the kernel, but costs a copy and a lock per entry).
  const unsigned cq_entries =
      std::max({sq_entries * 4, ring_entries_for(ring_buffers * 2), ring_entries_for(32768)});
  if (Status ring = ring_.init(sq_entries, cq_entries, caps_, spec.uring.sqpoll); !ring)
    return ring.error();

  if (mode_ == UringRecvMode::multishot) {
    bundles_ = caps_.bundle;
    if (Status init = buffers_.init(ring_buffers, spec.workload.recv_buffer); !init)
      return init.error();
    if (Status reg = buffers_.register_with(ring_.get(), buffer_group); !reg) return reg.error();
  } else {
    buffer_ = IoBuffer(tcp_receive_length(spec), 0);
    if (!buffer_)
      return fail("cannot allocate a " + std::to_string(spec.workload.recv_buffer) +
                  "-byte buffer");
  }
  // Blocking, as accepted ones are: io_uring waits with its own poll. Served once run() begins.
  if (!adopted_.empty()) return adopt_connections(true, [](uint32_t) {});
  return ok();
}

void UringReceiver::arm_accept(uint32_t index) {
  Listener& l = listeners_[index];
  io_uring_sqe* sqe = ring_.sqe();
  if (sqe == nullptr) {
    record_error("io_uring: the kernel takes no more submissions");
    return;
  }
  if (caps_.multishot_accept)
    io_uring_prep_multishot_accept(sqe, l.fd.get(), nullptr, nullptr, SOCK_CLOEXEC);
  else
    io_uring_prep_accept(sqe, l.fd.get(), nullptr, nullptr, SOCK_CLOEXEC);
  sqe->user_data = uring::pack(index, uring::Op::accept);
  l.armed = true;
  ++armed_;
}

template <UringRecvMode Mode>
void UringReceiver::arm_recv(uint32_t index) {
  Connection& c = connections_[index];
  io_uring_sqe* sqe = ring_.sqe();
  if (sqe == nullptr) {
    record_error("io_uring: the kernel takes no more submissions");
    return;
  }
  if constexpr (Mode == UringRecvMode::multishot) {
    io_uring_prep_recv_multishot(sqe, c.fd.get(), nullptr, 0, 0);
    sqe->flags |= IOSQE_BUFFER_SELECT;
    sqe->buf_group = buffer_group;
    if (bundles_) sqe->ioprio |= IORING_RECVSEND_BUNDLE;
  } else if constexpr (Mode == UringRecvMode::single) {
    io_uring_prep_recv(sqe, c.fd.get(), buffer_.data(), buffer_.size(), 0);
  } else {
    // TCP with MSG_TRUNC discards up to len bytes without copying them and returns the count.
    io_uring_prep_recv(sqe, c.fd.get(), buffer_.data(), buffer_.size(), MSG_TRUNC);
  }
  sqe->user_data = uring::pack(index, uring::Op::recv);
  c.armed = true;
  ++armed_;
}

void UringReceiver::arm_inbox() {
  io_uring_sqe* sqe = ring_.sqe();
  if (sqe == nullptr) {
    record_error("io_uring: the kernel takes no more submissions");
    inbox_unpolled_ = true;
    return;
  }
  io_uring_prep_poll_add(sqe, static_cast<int>(context_.inbox->pollable()), POLLIN);
  sqe->user_data = uring::pack(0, uring::Op::inbox);
  inbox_armed_ = true;
  ++armed_;
}

template <UringRecvMode Mode>
void UringReceiver::on_inbox(const io_uring_cqe& cqe) {
  inbox_armed_ = false;
  --armed_;
  if (stopping_) return;  // what is still there is closed with the inbox
  if (cqe.res < 0 && cqe.res != -EINTR && cqe.res != -EAGAIN) {
    // Polled again it would fail again, at once: read every turn of the loop from now on.
    record_error(std::string("io_uring poll on the connection inbox: ") + std::strerror(-cqe.res));
    inbox_unpolled_ = true;
    return;
  }
  if (cqe.res >= 0) take_inbox_mail<Mode>();
  arm_inbox();
}

template <UringRecvMode Mode>
void UringReceiver::take_inbox_mail() {
  take_mail(
      true, [this](uint32_t index) { serve<Mode>(index); },
      [this](uint32_t index) { close_connection(index, 0); });
}

template <UringRecvMode Mode>
void UringReceiver::serve(uint32_t index) {
  arm_recv<Mode>(index);
  if (context_.on_accept) context_.on_accept();
  report_data_connection(context_, connections_[index].fd.get());
}

void UringReceiver::close_connection(uint32_t index, int err) {
  Connection& c = connections_[index];
  connection_ended(c, err);
  if (c.armed) {
    // The request holds the socket open: end it, the slot is freed by its last completion. The
    // shutdown ends the peer's sending (an inbox order's stranger) even if no SQE is free.
    ::shutdown(c.fd.get(), SHUT_RDWR);
    if (io_uring_sqe* sqe = ring_.sqe()) {
      io_uring_prep_cancel64(sqe, uring::pack(index, uring::Op::recv), 0);
      sqe->user_data = uring::pack(0, uring::Op::cancel);
    }
  }
  c.fd.reset();
  if (!c.armed) free_.push_back(index);
}

template <UringRecvMode Mode>
void UringReceiver::on_accept(uint32_t index, const io_uring_cqe& cqe) {
  Listener& l = listeners_[index];
  if (!(cqe.flags & IORING_CQE_F_MORE)) {
    l.armed = false;
    --armed_;
  }
  // An accept that gave a descriptor ends a shortage, whatever the admission then decides: a
  // listener whose backlog the descriptor reserve drains would otherwise never say it is back.
  if (cqe.res >= 0) accepted(l);
  if (cqe.res >= 0 && !admit_accepted(context_, cqe.res)) {
    ::close(cqe.res);  // --allow / --max-clients / the descriptor reserve: counted there
  } else if (cqe.res >= 0) {
    const uint32_t slot_index = add_connection(l, cqe.res);
    if (stopping_) {
      unwatch_connection(context_, connections_[slot_index].watch_id);
      connections_[slot_index].tally = nullptr;
      connections_[slot_index].fd.reset();
      free_.push_back(slot_index);
    } else {
      serve<Mode>(slot_index);
    }
  } else if (cqe.res != -ECANCELED && cqe.res != -EINTR && cqe.res != -EAGAIN &&
             cqe.res != -ECONNABORTED) {
    // A shortage: resume_listeners() arms it again once the rest is over.
    if (accept_failed(l, -cqe.res)) {
      if (l.armed) {  // a multishot accept still armed would go on failing
        if (io_uring_sqe* sqe = ring_.sqe()) {
          io_uring_prep_cancel64(sqe, uring::pack(index, uring::Op::accept), 0);
          sqe->user_data = uring::pack(0, uring::Op::cancel);
        }
      }
    }
  }
  if (!l.armed && !l.rest.resting() && !stopping_) arm_accept(index);
}

void UringReceiver::resume_listeners() {
  const auto now = ListenerRest::Clock::now();
  resume_due_listeners(now, now, [&](uint32_t i) {
    if (!listeners_[i].armed && !stopping_)
      arm_accept(i);  // else its cancel is still on the way back
  });
}

template <UringRecvMode Mode, bool CountReads>
void UringReceiver::on_completion(const io_uring_cqe& cqe) {
  const uring::Op op = uring::op_of(cqe.user_data);
  const uint32_t index = uring::index_of(cqe.user_data);
  if (op == uring::Op::accept) {
    on_accept<Mode>(index, cqe);
    return;
  }
  if (op == uring::Op::inbox) {
    on_inbox<Mode>(cqe);
    return;
  }
  if (op != uring::Op::recv) return;  // a cancel's own completion

  Connection& c = connections_[index];
  if constexpr (Mode == UringRecvMode::multishot) {
    // The data is discarded: the buffers go straight back to the ring.
    if (cqe.flags & IORING_CQE_F_BUFFER) {
      if (bundles_)
        buffers_.recycle_in_order(buffers_.buffers_used(cqe.res));
      else
        buffers_.recycle(static_cast<uint16_t>(cqe.flags >> IORING_CQE_BUFFER_SHIFT));
    }
  }
  const bool ended = Mode != UringRecvMode::multishot || !(cqe.flags & IORING_CQE_F_MORE);
  if (ended) {
    c.armed = false;
    --armed_;
  }
  if (!c.fd.valid()) {  // closed while a request was still live
    if (ended) free_.push_back(index);
    return;
  }
  const int res = cqe.res;
  if (res > 0) {
    context_.counters[c.slot].add(static_cast<uint64_t>(res));
    c.bytes += static_cast<uint64_t>(res);
    // A bundle's completion filled several buffers: counted as receives of -l and the rest.
    if constexpr (CountReads)
      if (c.tally != nullptr) binning_.count(*c.tally, static_cast<uint64_t>(res));
    if (ended && !stopping_) arm_recv<Mode>(index);
    return;
  }
  if (res == 0) {
    close_connection(index, 0);  // orderly EOF
    return;
  }
  // ENOBUFS: the buffer ring ran dry and ended the multishot request; the recycled buffers are
  // published before the re-arm is submitted.
  if (res == -ENOBUFS || res == -EINTR || res == -EAGAIN) {
    if (ended && !stopping_) arm_recv<Mode>(index);
    return;
  }
  if (res == -ECANCELED) return;
  close_connection(index, -res);
}

template <UringRecvMode Mode, bool CountReads>
void UringReceiver::receive_loop(const std::atomic<bool>& stop) {
  for (uint32_t i = 0; i < listeners_.size(); ++i) arm_accept(i);
  for (uint32_t i = 0; i < connections_.size(); ++i)  // one port: the adopted ones
    if (connections_[i].fd.valid() && !connections_[i].armed) serve<Mode>(i);
  if (serves_inbox_) arm_inbox();
  while (!stop.load(std::memory_order_relaxed)) {
    long long wait_ns = ring_wait_ns;
    if (follow_rates_)
      wait_ns = std::min(wait_ns, static_cast<long long>(follow_rates(call_clock_ticks())));
    if (const int r = ring_.submit_and_wait(wait_ns); r < 0) {
      record_error(std::string("io_uring_enter: ") + std::strerror(-r));
      break;
    }
    ring_.reap([&](io_uring_cqe& done) { on_completion<Mode, CountReads>(done); });
    if (inbox_unpolled_) take_inbox_mail<Mode>();
    if constexpr (Mode == UringRecvMode::multishot) buffers_.publish();
    if (resting_ > 0) resume_listeners();  // the wait above lasts at most ~100 ms
  }
  cancel_and_drain<Mode, CountReads>();
}

// At stop: end every accept and recv still armed and count what they still bring, bounded by
// ring_drain_budget, so no request outlives run() (nor writes into a buffer after it).
template <UringRecvMode Mode, bool CountReads>
void UringReceiver::cancel_and_drain() {
  stopping_ = true;
  auto cancel = [&](uint64_t user_data) {
    io_uring_sqe* sqe = ring_.sqe();
    if (sqe == nullptr) return;
    io_uring_prep_cancel64(sqe, user_data, 0);
    sqe->user_data = uring::pack(0, uring::Op::cancel);
  };
  for (uint32_t i = 0; i < listeners_.size(); ++i)
    if (listeners_[i].armed) cancel(uring::pack(i, uring::Op::accept));
  for (uint32_t i = 0; i < connections_.size(); ++i)
    if (connections_[i].armed) cancel(uring::pack(i, uring::Op::recv));
  if (inbox_armed_) cancel(uring::pack(0, uring::Op::inbox));
  const auto deadline = std::chrono::steady_clock::now() + ring_drain_budget;
  while (armed_ > 0 && std::chrono::steady_clock::now() < deadline) {
    ring_.submit_and_wait(ring_drain_wait_ns);
    ring_.reap([&](io_uring_cqe& done) { on_completion<Mode, CountReads>(done); });
    if constexpr (Mode == UringRecvMode::multishot) buffers_.publish();
  }
}

template <bool CountReads>
void UringReceiver::run_mode(const std::atomic<bool>& stop) {
  switch (mode_) {
    case UringRecvMode::multishot: receive_loop<UringRecvMode::multishot, CountReads>(stop); break;
    case UringRecvMode::single: receive_loop<UringRecvMode::single, CountReads>(stop); break;
    case UringRecvMode::truncate: receive_loop<UringRecvMode::truncate, CountReads>(stop); break;
  }
}

void UringReceiver::run(const std::atomic<bool>& stop) {
  if (context_.spec->io.count_reads)
    run_mode<true>(stop);
  else
    run_mode<false>(stop);
}

WorkerReport UringReceiver::finish() { return finish_report(); }

}  // namespace xttcp
