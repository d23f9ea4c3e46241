// One io_uring instance owned by one worker (RAII), created with the best setup flags the probe
// found. Created and used on the worker's own thread (SINGLE_ISSUER|DEFER_TASKRUN require it:
// DataWorker::open() and run() run on the same thread).
#pragma once

#include <liburing.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <string>

#include "base/status.hh"
#include "engine/backend/data_worker.hh"
#include "io_backends/uring/probe.hh"

namespace xttcp {

class Ring {
 public:
  Ring() = default;
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;
  ~Ring();

  // Control path. sq_entries and cq_entries are clamped by the kernel; sqpoll asks for a
  // kernel submission thread (--sqpoll).
  Status init(unsigned sq_entries, unsigned cq_entries, const UringCapabilities& caps, bool sqpoll);

  io_uring* get() { return &ring_; }
  // --busy-poll on io_uring: the ring's waits busy-poll the NAPI queues of its sockets for up to
  // `busy_poll_us` before sleeping (IORING_REGISTER_NAPI, Linux 6.9). Returns the note that says
  // what the kernel did ("io_uring NAPI busy poll: 50 us, preferred" or why not). Control path.
  std::string register_napi(uint32_t busy_poll_us);
  bool valid() const { return valid_; }

  // A free SQE; when the submission queue is full, submits what is queued first. nullptr only
  // if the kernel refuses to take more (the caller records an error).
  io_uring_sqe* sqe() {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    return sqe != nullptr ? sqe : sqe_slow();
  }

  // Data path: submits what is queued and waits at most `wait_ns` (< 1 s) for a completion.
  // 0, or the negative errno of io_uring_enter when it is more than a timeout, a signal or a
  // full completion queue.
  int submit_and_wait(long long wait_ns) {
    __kernel_timespec wait{0, wait_ns};
    io_uring_cqe* cqe = nullptr;
    const int r = io_uring_submit_and_wait_timeout(&ring_, &cqe, 1, &wait, nullptr);
    return r < 0 && r != -ETIME && r != -EINTR && r != -EBUSY && r != -EAGAIN ? r : 0;
  }
  // Data path: hands every completion waiting in the queue to `on`, in order, then marks them
  // seen. Every io_uring loop of this backend reaps through here (inlined: no call per CQE).
  template <class OnCompletion>
  unsigned reap(OnCompletion&& on) {
    unsigned head = 0, seen = 0;
    io_uring_cqe* cqe = nullptr;
    io_uring_for_each_cqe(&ring_, head, cqe) {
      ++seen;
      on(*cqe);
    }
    io_uring_cq_advance(&ring_, seen);
    return seen;
  }

 private:
  io_uring_sqe* sqe_slow();

  io_uring ring_{};
  bool valid_ = false;
};

// How long a worker's completion wait lasts before it looks at `stop` again.
inline constexpr long long ring_wait_ns = std::chrono::nanoseconds(stop_check_interval).count();
// How long a stopping worker waits for the kernel to hand back its requests, and for how long
// at a time.
inline constexpr auto ring_drain_budget = std::chrono::milliseconds(100);
inline constexpr long long ring_drain_wait_ns = 10'000'000;

// Queue sizes: the next power of two >= n, within [8, 32768].
constexpr unsigned ring_entries_for(std::size_t n) {
  unsigned p = 8;
  while (p < n && p < 32768) p *= 2;
  return p;
}

// Setup flags for `mode` (without SQPOLL), exposed for tests.
unsigned ring_setup_flags(RingMode mode);

}  // namespace xttcp
