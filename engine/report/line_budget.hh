// A budget of log lines per period, for lines a remote peer can trigger: a flood of bad
// requests must not fill the console or the -O log. What is held back is counted and said once
// the next period opens.
#pragma once

#include <chrono>
#include <cstdint>

namespace xttcp {

class LineBudget {
 public:
  using Clock = std::chrono::steady_clock;

  LineBudget(uint32_t lines_per_period, Clock::duration period)
      : limit_(lines_per_period), period_(period) {}

  struct Verdict {
    bool print = false;
    uint64_t suppressed_before = 0;  // lines held back in earlier periods, to say first
  };
  Verdict take(Clock::time_point now) {
    Verdict verdict;
    if (now - period_start_ >= period_) {
      period_start_ = now;
      used_ = 0;
      verdict.suppressed_before = suppressed_;
      suppressed_ = 0;
    }
    if (used_ < limit_) {
      ++used_;
      verdict.print = true;
    } else {
      ++suppressed_;
    }
    return verdict;
  }
  uint64_t suppressed() const { return suppressed_; }

 private:
  uint32_t limit_;
  Clock::duration period_;
  Clock::time_point period_start_{};
  uint32_t used_ = 0;
  uint64_t suppressed_ = 0;
};

}  // namespace xttcp
