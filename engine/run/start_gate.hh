// StartGate: where the receiver waits for its light to go on (sync 'R'/'L', or the first data
// connection with -N). Fired from the sync or worker threads; waited on by the engine.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>

namespace xttcp {

class StartGate {
 public:
  // Opens the gate for a cycle of `cycle_s` seconds; later calls before reset() are ignored.
  void open(uint32_t cycle_s) {
    {
      std::lock_guard lock(mutex_);
      if (armed_ && !cycle_) cycle_ = cycle_s;
    }
    changed_.notify_all();
  }
  // Wakes a waiter without opening (e.g. Ctrl+C).
  void interrupt() {
    {
      std::lock_guard lock(mutex_);
      interrupted_ = true;
    }
    changed_.notify_all();
  }
  // Starts accepting open() calls (earlier ones are ignored: they belong to no test).
  void arm() {
    std::lock_guard lock(mutex_);
    armed_ = true;
    cycle_.reset();
  }
  // The cycle if opened; nullopt on timeout or interrupt. timeout 0 = no limit.
  std::optional<uint32_t> wait(std::chrono::seconds timeout) {
    std::unique_lock lock(mutex_);
    auto ready = [this] { return cycle_.has_value() || interrupted_; };
    if (timeout.count() == 0)
      changed_.wait(lock, ready);
    else
      changed_.wait_for(lock, timeout, ready);
    if (!cycle_) return std::nullopt;
    armed_ = false;
    return cycle_;
  }
  bool interrupted() const {
    std::lock_guard lock(mutex_);
    return interrupted_;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool armed_ = false;
  bool interrupted_ = false;
  std::optional<uint32_t> cycle_;
};

}  // namespace xttcp
