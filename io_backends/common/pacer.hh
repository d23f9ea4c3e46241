// Sleep-based pacing for a sender loop (-B): after each write, sleep until the bytes sent so far
// are due at the target rate. Sleeps, never spins (unlike NTTTCP-for-Linux's busy loop).
#pragma once

#include <time.h>

#include <cstdint>

namespace xttcp {

class Pacer {
 public:
  // bytes_per_second 0 = unpaced (the sender loop then never calls after_write()).
  explicit Pacer(double bytes_per_second) : rate_(bytes_per_second) {}

  void start() { clock_gettime(CLOCK_MONOTONIC, &start_); }

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
    if (now.tv_sec < due.tv_sec || (now.tv_sec == due.tv_sec && now.tv_nsec < due.tv_nsec))
      clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due, nullptr);
  }

 private:
  double rate_;
  uint64_t sent_ = 0;
  timespec start_{};
};

}  // namespace xttcp
