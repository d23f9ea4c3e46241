#include "io_backends/uring/ring.hh"

#include <sys/syscall.h>
#include <unistd.h>

#include <fmt/format.h>

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

std::string Ring::register_napi(uint32_t busy_poll_us) {
  uring_compat::Napi napi;
  napi.busy_poll_to = busy_poll_us;
  napi.prefer_busy_poll = 1;
  const int r = static_cast<int>(
      syscall(__NR_io_uring_register, ring_.ring_fd, uring_compat::register_napi, &napi, 1));
  if (r < 0)
    return fmt::format(
        "--busy-poll {}: io_uring NAPI busy poll not available ({}{})", busy_poll_us,
        std::strerror(errno),
        errno == EINVAL ? ": the kernel predates IORING_REGISTER_NAPI, Linux 6.9" : "");
  return fmt::format("--busy-poll {}: io_uring NAPI busy poll {} us per wait, preferred",
                     busy_poll_us, busy_poll_us);
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
