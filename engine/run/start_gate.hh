// StartGate: where the receiver waits for its light to go on (sync 'R'/'L', or the first data
// connection with -N). Opened from the sync or worker threads; waited on by the engine.
//
// A start that arrives while the engine is busy between two tests (-H) is kept, not lost: the
// sender has been told to run. Starts that arrive while a test runs belong to it (-N: the rest
// of its connections) and are ignored.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "engine/run/phase_clock.hh"
#include "engine/stats/counters.hh"

namespace xttcp {

class StartGate {
 public:
  // When the light went on, and the receiver's counters then when the opener took them (the
  // sync thread, before its 'R' leaves): the window begins there, not when the engine's thread
  // wakes up, which on a loaded host can be after the sender has started, so the sender's
  // window would end first and its 'E' land inside ours.
  struct Opening {
    SteadyClock::time_point at{};
    std::vector<CounterSnapshot> counts;  // empty: not taken
  };

  // How to read the receiver's counters at an opening (the worker pool's snapshot); set once,
  // before any opener runs. Without it the opening has no counts.
  void count_with(std::function<std::vector<CounterSnapshot>()> snapshot) {
    snapshot_ = std::move(snapshot);
  }
  // What else the receiver notes at an opening, under the gate's lock, so that the engine reads
  // it after wait() (its descriptor shortfall: what ran short after the light went on is the
  // test's, whenever the engine's thread wakes). Set once, before any opener runs.
  void note_with(std::function<void()> note) { note_ = std::move(note); }
  // A start for a cycle of `cycle_s` seconds; ignored while a test runs or one is pending.
  void open(uint32_t cycle_s) {
    {
      std::lock_guard lock(mutex_);
      if (running_ || pending_) return;
      pending_ = cycle_s;
      opening_.at = SteadyClock::now();
      if (snapshot_) opening_.counts = snapshot_();
      if (note_) note_();
    }
    changed_.notify_all();
  }
  // The opening of the start that wait() last returned.
  Opening take_opening() {
    std::lock_guard lock(mutex_);
    return std::exchange(opening_, {});
  }
  // Wakes a waiter without opening (e.g. Ctrl+C).
  void interrupt() {
    {
      std::lock_guard lock(mutex_);
      interrupted_ = true;
    }
    changed_.notify_all();
  }
  // The pending start's cycle, the test then counting as running; nullopt on timeout or
  // interrupt. timeout 0 = no limit.
  std::optional<uint32_t> wait(std::chrono::seconds timeout) {
    std::unique_lock lock(mutex_);
    auto ready = [this] { return pending_.has_value() || interrupted_; };
    if (timeout.count() == 0)
      changed_.wait(lock, ready);
    else
      changed_.wait_for(lock, timeout, ready);
    if (!pending_ || interrupted_) return std::nullopt;
    running_ = true;
    return std::exchange(pending_, std::nullopt);
  }
  // The test that wait() started is over: the next start opens the gate again.
  void finished() {
    std::lock_guard lock(mutex_);
    running_ = false;
  }
  bool interrupted() const {
    std::lock_guard lock(mutex_);
    return interrupted_;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool running_ = false;
  bool interrupted_ = false;
  std::optional<uint32_t> pending_;
  Opening opening_;
  std::function<std::vector<CounterSnapshot>()> snapshot_;
  std::function<void()> note_;
};

}  // namespace xttcp
