#include "io_backends/uring/ring.hh"

#include <cerrno>
#include <cstring>
#include <string>

#include "io_backends/uring/compat.hh"

namespace xttcp {

unsigned ring_setup_flags(RingMode mode) {
  switch (mode) {
    case RingMode::defer_taskrun: return IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
    case RingMode::coop_taskrun: return IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG;
    case RingMode::plain: break;
  }
  return 0;
}

Ring::~Ring() {
  if (valid_) io_uring_queue_exit(&ring_);
}

Status Ring::init(unsigned sq_entries, unsigned cq_entries, const UringCapabilities& caps,
                  bool sqpoll) {
  io_uring_params params{};
  params.flags = IORING_SETUP_CQSIZE | IORING_SETUP_CLAMP;
  params.cq_entries = cq_entries;
  if (sqpoll) {
    // DEFER_TASKRUN cannot be combined with SQPOLL; the SQ thread is the only issuer anyway.
    params.flags |= IORING_SETUP_SQPOLL;
    params.sq_thread_idle = 100;  // ms before the kernel thread sleeps
  } else {
    params.flags |= ring_setup_flags(caps.ring_mode);
  }
  const int r = io_uring_queue_init_params(sq_entries, &ring_, &params);
  if (r < 0)
    return fail(std::string(sqpoll ? "--sqpoll: " : "") + "io_uring_setup: " + std::strerror(-r));
  valid_ = true;
  return ok();
}

io_uring_sqe* Ring::sqe_slow() {
  for (int attempt = 0; attempt < 64; ++attempt) {
    const int submitted = io_uring_submit(&ring_);
    if (submitted < 0 && submitted != -EINTR && submitted != -EAGAIN) return nullptr;
    if (io_uring_sqe* sqe = io_uring_get_sqe(&ring_)) return sqe;
    if (ring_.flags & IORING_SETUP_SQPOLL) io_uring_sqring_wait(&ring_);  // the SQ thread lags
  }
  return nullptr;
}

}  // namespace xttcp
