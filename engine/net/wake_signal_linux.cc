// Linux: an eventfd, readable while its counter is non-zero.
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "engine/net/wake_signal.hh"

namespace xttcp {

Expected<WakeSignal> WakeSignal::create() {
  UniqueSocket fd(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  if (!fd.valid()) return fail("eventfd: " + socket_error_text(errno));
  return WakeSignal(std::move(fd));
}

void WakeSignal::notify() {
  const uint64_t one = 1;
  [[maybe_unused]] ssize_t written = write(handle_.get(), &one, sizeof one);
}

void WakeSignal::drain() {
  uint64_t value;
  [[maybe_unused]] ssize_t drained = read(handle_.get(), &value, sizeof value);
}

}  // namespace xttcp
