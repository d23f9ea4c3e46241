#include "engine/run/phase_clock.hh"

namespace xttcp {

bool PhaseClock::wait_until(SteadyClock::time_point when) {
  std::unique_lock lock(mutex_);
  // libstdc++ waits on CLOCK_MONOTONIC here (pthread_cond_clockwait): exact, immune to NTP steps.
  return !changed_.wait_until(lock, when, [this] { return cancelled_; });
}

void PhaseClock::cancel(std::string reason) {
  std::vector<std::function<void()>> hooks;
  {
    std::lock_guard lock(mutex_);
    if (!cancelled_) reason_ = std::move(reason);
    cancelled_ = true;
    hooks = hooks_;
  }
  changed_.notify_all();
  for (auto& hook : hooks) hook();
}

void PhaseClock::add_cancel_hook(std::function<void()> hook) {
  std::lock_guard lock(mutex_);
  hooks_.push_back(std::move(hook));
}

void PhaseClock::reset() {
  std::lock_guard lock(mutex_);
  cancelled_ = false;
  reason_.clear();
}

bool PhaseClock::cancelled() const {
  std::lock_guard lock(mutex_);
  return cancelled_;
}

std::string PhaseClock::reason() const {
  std::lock_guard lock(mutex_);
  return reason_;
}

}  // namespace xttcp
