// -lm on the data path: a worker stamps the clock when it starts a send/recv call and records the
// call's duration in the flow's counter when the call is done (for overlapped I/O: when its
// completion is handled). The engine's latency period (FlowCounter) is read at the end of the
// call, like NTttcp's "recording" flag. With -lm off, stamp() and record() are one predictable
// branch each on a pointer that never changes during the run.
#pragma once

#include <atomic>
#include <cstdint>

#include "engine/stats/call_clock.hh"
#include "engine/stats/counters.hh"

namespace xttcp {

class CallTimer {
 public:
  CallTimer() = default;  // off
  // `period`: the engine's current latency period (WorkerContext::latency_period); null = off.
  explicit CallTimer(const std::atomic<uint64_t>* period) : period_(period) {}

  bool on() const { return period_ != nullptr; }

  // The start of a call: a clock reading, or 0 when off.
  uint64_t stamp() const { return period_ != nullptr ? call_clock_ticks() : 0; }

  // The end of the call that started at `start` (a stamp()): its duration goes to `counter`.
  void record(FlowCounter& counter, uint64_t start) const {
    if (period_ == nullptr) return;
    const uint64_t end = call_clock_ticks();
    counter.add_latency(period_->load(std::memory_order_relaxed), end - start);
  }

 private:
  const std::atomic<uint64_t>* period_ = nullptr;
};

}  // namespace xttcp
