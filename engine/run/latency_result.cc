#include "engine/run/latency_result.hh"

namespace xttcp {

IoLatency to_io_latency(const LatencyTotals& totals, double ns_per_tick) {
  return {totals.average() * ns_per_tick, static_cast<double>(totals.min) * ns_per_tick,
          static_cast<double>(totals.max) * ns_per_tick, totals.calls};
}

void fill_latency(Result& r, const Plan& plan, const std::vector<CounterSnapshot>& end,
                  double ns_per_tick) {
  std::vector<LatencyTotals> threads(r.threads.size());
  for (const WorkerPlan& worker : plan.workers)
    for (const FlowPlan& flow : worker.flows)
      if (flow.slot < end.size() && flow.thread_index < threads.size())
        threads[flow.thread_index].merge(end[flow.slot].latency);
  LatencyTotals all;
  for (size_t i = 0; i < threads.size(); ++i) {
    if (threads[i].calls == 0) continue;
    r.threads[i].latency = to_io_latency(threads[i], ns_per_tick);
    all.merge(threads[i]);
  }
  if (all.calls > 0) r.latency = to_io_latency(all, ns_per_tick);
}

}  // namespace xttcp
