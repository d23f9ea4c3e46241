// Per-flow counters written by exactly one worker and read by the engine at phase edges and
// intervals. One cache line each so two workers never share a line.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <new>

namespace xttcp {

inline constexpr std::size_t cache_line = 64;

struct alignas(cache_line) FlowCounter {
  std::atomic<uint64_t> bytes{0};
  std::atomic<uint64_t> operations{0};  // successful send()/recv() calls

  // -lm (NTttcp for Windows' latency measurement): the durations of this flow's timed calls in
  // call-clock ticks (engine/stats/call_clock.hh), for one latency period. The engine numbers
  // the periods (WorkerPool::snapshot() ends one and begins the next); the first call of a new
  // period starts the figures afresh, so every period has its own min and max.
  std::atomic<uint64_t> latency_period{0};  // the period the four figures below belong to
  std::atomic<uint64_t> latency_calls{0};
  std::atomic<uint64_t> latency_sum{0};
  std::atomic<uint64_t> latency_min{0};
  std::atomic<uint64_t> latency_max{0};

  // Single writer: a relaxed load + store is enough and avoids a locked add on the hot path.
  void add(uint64_t n) {
    bytes.store(bytes.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
    operations.store(operations.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }

  // One timed call of `ticks` in latency period `period` (> 0). Single writer, like add().
  void add_latency(uint64_t period, uint64_t ticks) {
    constexpr auto relaxed = std::memory_order_relaxed;
    if (latency_period.load(relaxed) != period) {
      latency_calls.store(1, relaxed);
      latency_sum.store(ticks, relaxed);
      latency_min.store(ticks, relaxed);
      latency_max.store(ticks, relaxed);
      // Release: a reader that sees the new period sees the figures that start it.
      latency_period.store(period, std::memory_order_release);
      return;
    }
    latency_calls.store(latency_calls.load(relaxed) + 1, relaxed);
    latency_sum.store(latency_sum.load(relaxed) + ticks, relaxed);
    if (ticks < latency_min.load(relaxed)) latency_min.store(ticks, relaxed);
    if (ticks > latency_max.load(relaxed)) latency_max.store(ticks, relaxed);
  }
};
static_assert(sizeof(FlowCounter) == cache_line);

// Timed calls (-lm) in call-clock ticks: how many, their sum, the shortest and the longest.
// calls == 0: none (min and max are then meaningless).
struct LatencyTotals {
  uint64_t calls = 0;
  uint64_t sum = 0, min = 0, max = 0;

  // Adds the calls of `other` (another flow of the same NTttcp thread, or another thread).
  LatencyTotals& merge(const LatencyTotals& other) {
    if (other.calls == 0) return *this;
    min = calls == 0 ? other.min : std::min(min, other.min);
    max = calls == 0 ? other.max : std::max(max, other.max);
    calls += other.calls;
    sum += other.sum;
    return *this;
  }
  double average() const {
    return calls == 0 ? 0.0 : static_cast<double>(sum) / static_cast<double>(calls);
  }
};

struct CounterSnapshot {
  uint64_t bytes = 0;
  uint64_t operations = 0;
  LatencyTotals latency;  // -lm: the calls of the latency period this snapshot ended
};

inline CounterSnapshot read(const FlowCounter& c) {
  return {
      c.bytes.load(std::memory_order_relaxed), c.operations.load(std::memory_order_relaxed), {}};
}

// The flow's timed calls in latency period `period`; none if it made none in that period.
inline LatencyTotals read_latency(const FlowCounter& c, uint64_t period) {
  constexpr auto relaxed = std::memory_order_relaxed;
  if (period == 0 || c.latency_period.load(std::memory_order_acquire) != period) return {};
  return {c.latency_calls.load(relaxed), c.latency_sum.load(relaxed), c.latency_min.load(relaxed),
          c.latency_max.load(relaxed)};
}

}  // namespace xttcp
