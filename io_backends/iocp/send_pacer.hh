// Pacing of the iocp senders (-B over all connections, NTttcp for Windows' -thr per thread):
// a buffer may start once the bytes started before it are due at the target rate. It never
// sleeps: a send that is not due waits in the worker's queue, and the completion wait is cut
// short to when it is (io_backends/common/pacer.hh sleeps instead, on Linux's clock_nanosleep,
// which would hold back the completions of every other connection of the worker).
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <vector>

#include "engine/spec.hh"
#include "io_backends/send_rate.hh"

namespace xttcp::iocp {

class SendPacer {
 public:
  using Clock = std::chrono::steady_clock;

  // bytes_per_second 0 = unpaced.
  explicit SendPacer(double bytes_per_second = 0) : rate_(bytes_per_second) {}

  bool paced() const { return rate_ > 0; }
  void start() { start_ = Clock::now(); }

  // Whether the next buffer may start now.
  bool due(Clock::time_point now) const { return seconds_due() <= seconds_since_start(now); }
  void started(uint64_t bytes) { started_ += bytes; }

  // How long until due(), in whole ms, between 1 and `longest`.
  unsigned long wait_ms(Clock::time_point now, unsigned long longest) const {
    const double left = (seconds_due() - seconds_since_start(now)) * 1000.0;
    return static_cast<unsigned long>(
        std::clamp(std::ceil(left), 1.0, static_cast<double>(longest)));
  }

 private:
  double seconds_due() const { return static_cast<double>(started_) / rate_; }
  double seconds_since_start(Clock::time_point now) const {
    return std::chrono::duration<double>(now - start_).count();
  }

  double rate_;
  uint64_t started_ = 0;
  Clock::time_point start_{};
};

// Starts the sends waiting in `queued`, oldest first, while the pacer allows (always, unpaced).
// `post` starts one and puts it back at the end of `queued` when it has to wait again; the ones
// not reached keep their place at the front, so every connection gets its turn (round robin).
// `scratch` is the caller's, reused to avoid an allocation per turn.
template <bool Paced, class Request, class Post>
void post_queued(std::vector<Request*>& queued, std::vector<Request*>& scratch,
                 const SendPacer& pacer, Post&& post) {
  scratch.clear();
  scratch.swap(queued);
  std::size_t next = 0;
  for (; next < scratch.size(); ++next) {
    if constexpr (Paced)
      if (!pacer.due(SendPacer::Clock::now())) break;
    post(*scratch[next]);
  }
  queued.insert(queued.begin(), scratch.begin() + static_cast<std::ptrdiff_t>(next), scratch.end());
}

// One worker's share of the limits, in bytes/s (0 = unpaced): io_backends/send_rate.hh.
inline double worker_rate(const TestSpec& spec, std::size_t connections) {
  return sender_worker_rate(spec, connections);
}

}  // namespace xttcp::iocp
