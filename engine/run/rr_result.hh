// --rr: turns the window's counters (a transaction per operation) and round-trip histograms
// into the Result's RrResult (docs/rr.md).
#pragma once

#include <vector>

#include "engine/result.hh"
#include "engine/stats/latency_histogram.hh"

namespace xttcp {

// Declared only: a renderer's test takes rr_latency() without the run's headers.
struct MeasuredWindow;
struct Plan;
struct WorkerReport;

// The figures of one set of round trips (zero when it is empty).
RrLatency rr_latency(const HistogramCounts& histogram);

// Fills r.rr from the window (r's totals and CPU split already filled) and the workers' reports.
void fill_rr(Result& r, const Plan& plan, const MeasuredWindow& window,
             const std::vector<WorkerReport>& reports);

}  // namespace xttcp
