// The run's one clock: waits until absolute CLOCK_MONOTONIC instants (no polling, no drift), and
// can be cut short from another thread (peer's early exit, Ctrl+C, a lost peer).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "engine/stop_reason.hh"

namespace xttcp {

using SteadyClock = std::chrono::steady_clock;

class PhaseClock;

// Keeps a cancel hook registered while it lives: whatever the hook touches must outlive it.
class CancelHook {
 public:
  CancelHook() = default;
  CancelHook(PhaseClock* clock, uint64_t id) : clock_(clock), id_(id) {}
  CancelHook(CancelHook&& other) noexcept;
  CancelHook& operator=(CancelHook&& other) noexcept;
  CancelHook(const CancelHook&) = delete;
  CancelHook& operator=(const CancelHook&) = delete;
  ~CancelHook();

 private:
  PhaseClock* clock_ = nullptr;
  uint64_t id_ = 0;
};

class PhaseClock {
 public:
  // Sleeps until `when`; false if cancelled or finished first (or already).
  bool wait_until(SteadyClock::time_point when);
  // The test is done before its clock says so (count mode: every flow did its buffers): ends
  // every current and future wait until reset(), like cancel(), but it is no interruption (no
  // hooks run, cancelled() stays false). The first reason is kept.
  void finish(StopCause cause, std::string message);
  bool finished() const;
  // Cancels every current and future wait until reset(); the first reason is kept.
  void cancel(StopCause cause, std::string message);
  void reset();
  bool cancelled() const;
  // Why the clock was cancelled or finished (cause none, message "" if neither).
  StopReason reason() const;
  StopCause cause() const { return reason().cause; }
  // Also run (on the cancelling thread) by every cancel() while the returned handle lives,
  // e.g. to wake another waiter. A hook must not add or remove hooks.
  [[nodiscard]] CancelHook add_cancel_hook(std::function<void()> hook);

 private:
  friend class CancelHook;
  void remove_hook(uint64_t id);

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool cancelled_ = false;
  bool finished_ = false;
  StopReason reason_;
  // Held while hooks run, so a hook's removal waits until it has finished running.
  std::mutex hooks_mutex_;
  std::map<uint64_t, std::function<void()>> hooks_;
  uint64_t next_hook_ = 1;
};

}  // namespace xttcp
