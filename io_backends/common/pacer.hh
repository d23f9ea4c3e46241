// Sleep-based pacing for a sender loop (-B): after each write, sleep until the bytes sent so far
// are due at the target rate. Sleeps, never spins (unlike NTTTCP-for-Linux's busy loop).
//
// A TCP sender may run up to `burst_ns` ahead of the schedule before it sleeps, so one wakeup
// carries a burst of writes rather than one: each sleep costs the sender a wakeup and hands the
// receiver a smaller burst (bench/README.md, "Each side's CPU"). TCP's window absorbs the
// burst; UDP keeps burst 0 (a datagram burst overflows the receiver's socket buffer and skews
// jitter).
#pragma once

#include <time.h>

#include <atomic>
#include <cstdint>

namespace xttcp {

class Pacer {
 public:
  // bytes_per_second 0 = unpaced (the sender loop then never calls after_write()).
  explicit Pacer(double bytes_per_second, int64_t burst_ns = 0)
      : rate_(bytes_per_second), burst_ns_(burst_ns) {}

  void start() { clock_gettime(CLOCK_MONOTONIC, &start_); }
  // A long sleep (a low rate with a large buffer) is taken in slices that watch this flag, so
  // the worker still stops within ~100 ms.
  void set_stop(const std::atomic<bool>* stop) { stop_ = stop; }

  void after_write(uint64_t bytes) {
    sent_ += bytes;
    const double due_s = static_cast<double>(sent_) / rate_;
    timespec due = start_;
    const auto whole = static_cast<time_t>(due_s);
    due.tv_sec += whole;
    due.tv_nsec += static_cast<long>((due_s - static_cast<double>(whole)) * 1e9);
    if (due.tv_nsec >= 1'000'000'000) {
      due.tv_sec += 1;
      due.tv_nsec -= 1'000'000'000;
    }
    timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (ahead_ns(now, due) <= burst_ns_) return;
    // Asleep until due, in slices that look at the stop flag between them.
    for (int64_t ahead = ahead_ns(now, due); ahead > 0;) {
      if (stop_ != nullptr && stop_->load(std::memory_order_relaxed)) return;
      if (ahead <= slice_ns) {
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due, nullptr);
      } else {
        const timespec slice{0, slice_ns};
        clock_nanosleep(CLOCK_MONOTONIC, 0, &slice, nullptr);
      }
      clock_gettime(CLOCK_MONOTONIC, &now);
      ahead = ahead_ns(now, due);
    }
  }

 private:
  static constexpr long slice_ns = 100'000'000;

  // How far `due` lies after `now` (negative: behind the schedule).
  static int64_t ahead_ns(const timespec& now, const timespec& due) {
    return static_cast<int64_t>(due.tv_sec - now.tv_sec) * 1'000'000'000 +
           (due.tv_nsec - now.tv_nsec);
  }

  const std::atomic<bool>* stop_ = nullptr;
  double rate_;
  int64_t burst_ns_;
  uint64_t sent_ = 0;
  timespec start_{};
};

}  // namespace xttcp
