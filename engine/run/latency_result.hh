// -lm (NTttcp for Windows' latency measurement): turns the timed calls in the counters of the
// window's last snapshot into the Result's per-thread and overall latency (ns).
#pragma once

#include <vector>

#include "engine/plan.hh"
#include "engine/result.hh"
#include "engine/stats/counters.hh"

namespace xttcp {

// `totals` in call-clock ticks of `ns_per_tick` ns each.
IoLatency to_io_latency(const LatencyTotals& totals, double ns_per_tick);

// Fills r.threads[].latency (threads with no timed call keep nullopt) and r.latency (over every
// call; nullopt when none) from `end`, the per-slot snapshot that ended the window.
void fill_latency(Result& r, const Plan& plan, const std::vector<CounterSnapshot>& end,
                  double ns_per_tick);

}  // namespace xttcp
