// The hot-path counter and its readers: what one FlowCounter::add costs next to a locked
// fetch_add, and what the engine pays to snapshot N flow counters (WorkerPool::snapshot, which
// the timeline calls at every interval and phase edge); and what a TCP receiver adds per receive
// when it counts each connection's reads by size (io.count_reads: ReadSizeBinning::count).
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdint>

#include "engine/plan.hh"
#include "engine/stats/counters.hh"
#include "engine/stats/stream_tally.hh"
#include "engine/run/worker_pool.hh"
#include "io_backends/null/null_backend.hh"

namespace xttcp {
namespace {

constexpr uint64_t bytes_per_send = 128 * 1024;

// One worker owning `flows` flows: a pool that is constructed but never started.
Plan one_worker_plan(uint32_t flows) {
  Plan plan;
  plan.workers.resize(1);
  for (uint32_t i = 0; i < flows; ++i) plan.workers[0].flows.push_back(FlowPlan{i, i, 5001, 0});
  plan.flow_count = flows;
  plan.thread_rows = flows;
  return plan;
}

// Single writer, as in every backend loop: relaxed load + store of two words, no lock prefix.
void BM_FlowCounterAdd(benchmark::State& state) {
  FlowCounter counter;
  for (auto _ : state) {
    counter.add(bytes_per_send);
    benchmark::ClobberMemory();
  }
  benchmark::DoNotOptimize(read(counter));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_FlowCounterAdd);

// The alternative FlowCounter avoids: the same two counters with locked read-modify-writes.
void BM_AtomicFetchAdd(benchmark::State& state) {
  std::atomic<uint64_t> bytes{0}, operations{0};
  for (auto _ : state) {
    bytes.fetch_add(bytes_per_send, std::memory_order_relaxed);
    operations.fetch_add(1, std::memory_order_relaxed);
    benchmark::ClobberMemory();
  }
  benchmark::DoNotOptimize(bytes.load());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AtomicFetchAdd);

// io.count_reads: one receive counted into its connection's tally (bytes, reads, a bin by size,
// iperf 2's -l/8 wide), -l 128K; the sizes vary as a loaded receiver's do, a receive longer than
// -l among them (MSG_TRUNC, io_uring bundles), so neither the bin nor the branch is predicted
// for free. items = receives counted.
void BM_ReadSizeBinningCount(benchmark::State& state) {
  uint64_t length = bytes_per_send;
  benchmark::DoNotOptimize(length);  // a run-time -l, as the worker's: no division folded away
  const ReadSizeBinning binning(length);
  StreamTally tally;
  static constexpr uint64_t sizes[] = {131072, 65536, 1448, 131072, 300000, 98304, 131072, 20000};
  std::size_t i = 0;
  for (auto _ : state) {
    binning.count(tally, sizes[i++ & 7]);
    benchmark::ClobberMemory();
  }
  benchmark::DoNotOptimize(tally.read());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ReadSizeBinningCount);

// WorkerPool::snapshot() over N flows (allocates the result vector each call, as the engine
// does). No thread is started: the pool is only constructed. items = counters read.
void BM_PoolSnapshot(benchmark::State& state) {
  const auto flows = static_cast<uint32_t>(state.range(0));
  auto backend = make_null_backend();
  TestSpec spec;
  spec.role = Role::sender;
  const Plan plan = one_worker_plan(flows);
  WorkerPool pool(*backend, spec, plan, SocketAddress{}, SocketAddress{});
  for (auto _ : state) benchmark::DoNotOptimize(pool.snapshot());
  state.SetItemsProcessed(state.iterations() * flows);
}
BENCHMARK(BM_PoolSnapshot)->Arg(1)->Arg(64)->Arg(4096);

// WorkerPool::total_bytes(): the same walk without the vector (the real-time line's read).
void BM_PoolTotalBytes(benchmark::State& state) {
  const auto flows = static_cast<uint32_t>(state.range(0));
  auto backend = make_null_backend();
  TestSpec spec;
  spec.role = Role::sender;
  const Plan plan = one_worker_plan(flows);
  WorkerPool pool(*backend, spec, plan, SocketAddress{}, SocketAddress{});
  for (auto _ : state) benchmark::DoNotOptimize(pool.total_bytes());
  state.SetItemsProcessed(state.iterations() * flows);
}
BENCHMARK(BM_PoolTotalBytes)->Arg(1)->Arg(64)->Arg(4096);

}  // namespace
}  // namespace xttcp

BENCHMARK_MAIN();
