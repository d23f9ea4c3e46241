// A budget of log lines per period, for lines a remote peer can trigger: a flood of bad
// requests must not fill the console or the -O log. What is held back is counted and said once
// the next period opens: by the next line taken then, or by overdue() (a caller's timer), so the
// count is said even when no later line comes.
#pragma once

#include <chrono>
#include <cstdint>
#include <utility>

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
  // One taken back: what it was taken for turned out not to count (a test that ran its course).
  void give_back() {
    if (used_ > 0) --used_;
  }
  // Whether take() would print now, without taking.
  bool has_room(Clock::time_point now) const {
    return now - period_start_ >= period_ || used_ < limit_;
  }
  // Lines held back in a period that is over, to say now (0 if none); a new period begins.
  uint64_t overdue(Clock::time_point now) {
    if (suppressed_ == 0 || now - period_start_ < period_) return 0;
    period_start_ = now;
    used_ = 0;
    return std::exchange(suppressed_, 0);
  }
  uint64_t suppressed() const { return suppressed_; }
  // The lines held back so far, to say now; counting starts again.
  uint64_t take_suppressed() { return std::exchange(suppressed_, 0); }

 private:
  uint32_t limit_;
  Clock::duration period_;
  Clock::time_point period_start_{};
  uint32_t used_ = 0;
  uint64_t suppressed_ = 0;
};

}  // namespace xttcp
