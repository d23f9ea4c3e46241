// The engine's own per-buffer cost: a WorkerPool running null-backend senders, whose loop has the
// shape of a real sender loop (round-robin over the worker's flows, one FlowCounter::add per
// "sent" buffer, a relaxed stop check per round) without any system call. The window is measured
// the way the Timeline does it: counters read while the workers run, at two instants.
// items_per_second = buffers counted per second over all workers.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <thread>

#include "engine/plan.hh"
#include "engine/run/worker_pool.hh"
#include "io_backends/null/null_backend.hh"

namespace xttcp {
namespace {

using namespace std::chrono_literals;
using SteadyClock = std::chrono::steady_clock;

constexpr auto settle = 20ms;   // threads enter their loops before the window opens
constexpr auto window = 200ms;  // one iteration's measured window

uint64_t operations(const WorkerPool& pool) {
  uint64_t sum = 0;
  for (const CounterSnapshot& s : pool.snapshot()) sum += s.operations;
  return sum;
}

// Args: workers, flows per worker. Workers are unpinned (the default), as in a plain run.
void BM_NullSenderLoop(benchmark::State& state) {
  const auto workers = static_cast<uint32_t>(state.range(0));
  const auto flows_per_worker = static_cast<uint32_t>(state.range(1));
  auto backend = make_null_backend();
  TestSpec spec;
  spec.role = Role::sender;
  Plan plan;
  plan.workers.resize(workers);
  uint32_t slot = 0;
  for (uint32_t w = 0; w < workers; ++w) {
    plan.workers[w].index = w;
    for (uint32_t f = 0; f < flows_per_worker; ++f, ++slot)
      plan.workers[w].flows.push_back(FlowPlan{slot, slot, 5001, 0});
  }
  plan.flow_count = slot;
  plan.thread_rows = slot;

  uint64_t counted = 0;
  for (auto _ : state) {
    WorkerPool pool(*backend, spec, plan, SocketAddress{}, SocketAddress{});
    if (Status opened = pool.open_all(5s); !opened) {
      state.SkipWithError(opened.error().message.c_str());
      break;
    }
    pool.release();
    std::this_thread::sleep_for(settle);
    const uint64_t before = operations(pool);
    const auto begin = SteadyClock::now();
    std::this_thread::sleep_for(window);
    const uint64_t after = operations(pool);
    const auto end = SteadyClock::now();
    pool.stop_and_join();
    counted += after - before;
    state.SetIterationTime(std::chrono::duration<double>(end - begin).count());
  }
  state.SetItemsProcessed(static_cast<int64_t>(counted));
}
BENCHMARK(BM_NullSenderLoop)
    ->ArgNames({"workers", "flows"})
    ->Args({1, 1})
    ->Args({1, 16})
    ->Args({2, 1})
    ->Args({2, 16})
    ->UseManualTime()
    ->Iterations(5)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace xttcp

BENCHMARK_MAIN();
