// What one trip into the kernel costs on this CPU, the figure that decides between epoll and
// io_uring (docs/data-paths.md, "epoll or io_uring: what decides"): epoll makes about 19,000
// system calls per GB on one stream, io_uring about 2,600, so io_uring wins by what the
// difference costs here. Speculative-execution mitigations set that cost, and they differ by CPU
// and hypervisor.
//
//   BM_KernelEntry            syscall(SYS_getppid): an entry and exit that does no work
//   BM_UringNop/batch:N       N no-op SQEs submitted and reaped with one io_uring_enter: the
//                             entry shared by N operations, and the ring's per-operation cost
//
// items_per_second is operations; the per-operation time is its inverse.
#include <benchmark/benchmark.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <string>

#ifdef XTTCP_BENCH_URING
#include <liburing.h>
#endif

namespace {

void BM_KernelEntry(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(syscall(SYS_getppid));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_KernelEntry);

#ifdef XTTCP_BENCH_URING
void BM_UringNop(benchmark::State& state) {
  const auto batch = static_cast<unsigned>(state.range(0));
  io_uring ring{};
  if (const int rc = io_uring_queue_init(256, &ring, 0); rc < 0) {
    state.SkipWithError(("io_uring_queue_init: " + std::to_string(-rc)).c_str());
    return;
  }
  for (auto _ : state) {
    for (unsigned i = 0; i < batch; ++i) io_uring_prep_nop(io_uring_get_sqe(&ring));
    io_uring_submit_and_wait(&ring, batch);
    io_uring_cq_advance(&ring, batch);
  }
  io_uring_queue_exit(&ring);
  state.SetItemsProcessed(state.iterations() * batch);
}
BENCHMARK(BM_UringNop)->ArgName("batch")->Arg(1)->Arg(8)->Arg(32);
#endif

}  // namespace

BENCHMARK_MAIN();
