#include "engine/run/rr_result.hh"

#include <algorithm>

#include "engine/backend/data_worker.hh"
#include "engine/plan.hh"
#include "engine/run/timeline.hh"
#include "engine/stats/rr_clock.hh"

namespace xttcp {

RrLatency rr_latency(const HistogramCounts& h) {
  RrLatency l;
  l.count = h.count;
  if (h.count == 0) return l;
  l.mean_ns = h.mean_ns();
  l.p50_ns = h.percentile(0.50);
  l.p90_ns = h.percentile(0.90);
  l.p99_ns = h.percentile(0.99);
  l.p999_ns = h.percentile(0.999);
  l.p9999_ns = h.percentile(0.9999);
  l.max_ns = h.max_ns;
  return l;
}

void fill_rr(Result& r, const Plan& plan, const MeasuredWindow& window,
             const std::vector<WorkerReport>& reports) {
  const TestSpec& spec = r.spec;
  RrResult rr;
  rr.depth = spec.rr.depth;
  rr.request_bytes =
      spec.role == Role::sender ? spec.workload.send_buffer : spec.workload.recv_buffer;
  rr.response_bytes = spec.rr.response_bytes(rr.request_bytes);
  rr.delay_us = spec.rr.delay_us;
  if (spec.role == Role::sender) rr.clock = RrClock::get().description();
  rr.transactions = r.total_operations;  // one operation per transaction (docs/rr.md)
  const double seconds = window.seconds;
  if (seconds > 0) rr.transactions_per_s = static_cast<double>(rr.transactions) / seconds;
  if (rr.transactions > 0)
    rr.cpu_us_per_transaction = (r.cpu.process_user_s + r.cpu.process_system_s) * 1e6 /
                                static_cast<double>(rr.transactions);
  for (const WorkerReport& report : reports) rr.lost += report.rr_lost;

  HistogramCounts total;
  for (const WorkerPlan& worker : plan.workers) {
    for (const FlowPlan& flow : worker.flows) {
      RrFlowResult f;
      f.flow = flow.slot;
      f.transactions = window.end[flow.slot].operations - window.begin[flow.slot].operations;
      if (seconds > 0) f.transactions_per_s = static_cast<double>(f.transactions) / seconds;
      if (flow.slot < window.rr_end.size()) {
        const HistogramCounts& end = window.rr_end[flow.slot];
        const HistogramCounts in_window = flow.slot < window.rr_begin.size()
                                              ? end.minus(window.rr_begin[flow.slot])
                                              : end.minus(HistogramCounts{});
        f.latency = rr_latency(in_window);
        total.merge(in_window);
      }
      rr.flows.push_back(f);
    }
  }
  std::sort(rr.flows.begin(), rr.flows.end(),
            [](const RrFlowResult& a, const RrFlowResult& b) { return a.flow < b.flow; });
  rr.latency = rr_latency(total);
  rr.sub_bucket_bits = histogram_layout::sub_bucket_bits;
  for (std::size_t i = 0; i < total.buckets.size(); ++i)
    if (total.buckets[i] > 0)
      rr.histogram.emplace_back(histogram_layout::lower_bound(i), total.buckets[i]);
  r.rr = std::move(rr);
}

}  // namespace xttcp
