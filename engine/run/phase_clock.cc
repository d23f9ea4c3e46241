#include "engine/run/phase_clock.hh"

#include <utility>

namespace xttcp {

CancelHook::CancelHook(CancelHook&& other) noexcept
    : clock_(std::exchange(other.clock_, nullptr)), id_(other.id_) {}

CancelHook& CancelHook::operator=(CancelHook&& other) noexcept {
  if (this != &other) {
    if (clock_ != nullptr) clock_->remove_hook(id_);
    clock_ = std::exchange(other.clock_, nullptr);
    id_ = other.id_;
  }
  return *this;
}

CancelHook::~CancelHook() {
  if (clock_ != nullptr) clock_->remove_hook(id_);
}

bool PhaseClock::wait_until(SteadyClock::time_point when) {
  std::unique_lock lock(mutex_);
  // libstdc++ waits on CLOCK_MONOTONIC here (pthread_cond_clockwait): exact, immune to NTP steps.
  return !changed_.wait_until(lock, when, [this] { return cancelled_ || finished_; });
}

void PhaseClock::cancel(StopCause cause, std::string message) {
  {
    std::lock_guard lock(mutex_);
    if (!cancelled_) reason_ = {cause, std::move(message)};
    cancelled_ = true;
  }
  changed_.notify_all();
  std::lock_guard hooks_lock(hooks_mutex_);
  for (auto& [id, hook] : hooks_) hook();
}

void PhaseClock::finish(StopCause cause, std::string message) {
  {
    std::lock_guard lock(mutex_);
    if (!cancelled_ && !finished_) reason_ = {cause, std::move(message)};
    finished_ = true;
  }
  changed_.notify_all();
}

bool PhaseClock::finished() const {
  std::lock_guard lock(mutex_);
  return finished_;
}

CancelHook PhaseClock::add_cancel_hook(std::function<void()> hook) {
  std::lock_guard lock(hooks_mutex_);
  const uint64_t id = next_hook_++;
  hooks_.emplace(id, std::move(hook));
  return CancelHook(this, id);
}

void PhaseClock::remove_hook(uint64_t id) {
  std::lock_guard lock(hooks_mutex_);
  hooks_.erase(id);
}

void PhaseClock::reset() {
  std::lock_guard lock(mutex_);
  cancelled_ = false;
  finished_ = false;
  reason_ = {};
}

bool PhaseClock::cancelled() const {
  std::lock_guard lock(mutex_);
  return cancelled_;
}

StopReason PhaseClock::reason() const {
  std::lock_guard lock(mutex_);
  return reason_;
}

}  // namespace xttcp
