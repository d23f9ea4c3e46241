// Per-flow counters written by exactly one worker and read by the engine at phase edges and
// intervals. One cache line each so two workers never share a line.
#pragma once

#include <atomic>
#include <cstdint>
#include <new>

namespace xttcp {

inline constexpr std::size_t cache_line = 64;

struct alignas(cache_line) FlowCounter {
  std::atomic<uint64_t> bytes{0};
  std::atomic<uint64_t> operations{0};  // successful send()/recv() calls

  // Single writer: a relaxed load + store is enough and avoids a locked add on the hot path.
  void add(uint64_t n) {
    bytes.store(bytes.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
    operations.store(operations.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
};
static_assert(sizeof(FlowCounter) == cache_line);

struct CounterSnapshot {
  uint64_t bytes = 0;
  uint64_t operations = 0;
};

inline CounterSnapshot read(const FlowCounter& c) {
  return {c.bytes.load(std::memory_order_relaxed), c.operations.load(std::memory_order_relaxed)};
}

}  // namespace xttcp
