// The run's one clock: waits until absolute CLOCK_MONOTONIC instants (no polling, no drift), and
// can be cut short from another thread (peer's early exit, Ctrl+C, a lost peer).
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace xttcp {

using SteadyClock = std::chrono::steady_clock;

class PhaseClock {
 public:
  // Sleeps until `when`; false if cancelled first (or already cancelled).
  bool wait_until(SteadyClock::time_point when);
  // Cancels every current and future wait until reset(); the first reason is kept.
  void cancel(std::string reason);
  void reset();
  bool cancelled() const;
  std::string reason() const;
  // Also called (on the cancelling thread) by every cancel(), e.g. to wake another waiter.
  void add_cancel_hook(std::function<void()> hook);

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool cancelled_ = false;
  std::string reason_;
  std::vector<std::function<void()>> hooks_;
};

}  // namespace xttcp
