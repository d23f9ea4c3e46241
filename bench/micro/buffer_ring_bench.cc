// The io_uring receiver's per-buffer bookkeeping: BufferRing::recycle for every completed
// receive, BufferRing::publish once per batch of completions. Exercised without a kernel ring
// (init() only maps the ring memory; nothing registers it), so this is the pure user-space cost.
// Built only when liburing is found (bench/meson.build). items = buffers recycled.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "io_backends/uring/buffer_ring.hh"

namespace xttcp {
namespace {

// Args: buffer size, completions per publish (the batch one io_uring_peek_batch_cqe returns).
void BM_BufferRingRecycle(benchmark::State& state) {
  const auto buffer_size = static_cast<uint32_t>(state.range(0));
  const auto batch = static_cast<uint32_t>(state.range(1));
  BufferRing ring;
  if (Status made = ring.init(BufferRing::entries_for(buffer_size), buffer_size); !made) {
    state.SkipWithError(made.error().message.c_str());
    return;
  }
  ring.publish();
  const uint32_t mask = ring.entries() - 1;
  uint32_t next = 0;  // the buffer ids come back in ring order, as the kernel hands them out
  for (auto _ : state) {
    for (uint32_t i = 0; i < batch; ++i) ring.recycle(static_cast<uint16_t>(next++ & mask));
    ring.publish();
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * batch);
}
BENCHMARK(BM_BufferRingRecycle)
    ->ArgNames({"buffer", "batch"})
    ->Args({65536, 1})
    ->Args({65536, 16})
    ->Args({4096, 1})
    ->Args({4096, 64});

}  // namespace
}  // namespace xttcp

BENCHMARK_MAIN();
