#include "engine/report/rr_console.hh"

#include <fmt/format.h>

namespace xttcp {

namespace {

// Flows listed one per line up to this many (all of them with -V).
constexpr size_t flow_lines = 16;

std::string us(double ns) { return fmt::format("{:.2f}", ns / 1000.0); }

std::string percentiles(const RrLatency& l) {
  return fmt::format("p50 {} p90 {} p99 {} p99.9 {} p99.99 {} max {} mean {} us",
                     us(static_cast<double>(l.p50_ns)), us(static_cast<double>(l.p90_ns)),
                     us(static_cast<double>(l.p99_ns)), us(static_cast<double>(l.p999_ns)),
                     us(static_cast<double>(l.p9999_ns)), us(static_cast<double>(l.max_ns)),
                     us(l.mean_ns));
}

}  // namespace

std::vector<std::string> rr_console_lines(const Result& r) {
  std::vector<std::string> lines;
  if (!r.rr) return lines;
  const RrResult& rr = *r.rr;
  const bool requester = r.role == Role::sender;
  lines.push_back(
      fmt::format("rr transactions\t:{} {} ({:.1f}/s), depth {}, {} B requests, {} B "
                  "responses{}",
                  rr.transactions, requester ? "completed" : "answered", rr.transactions_per_s,
                  rr.depth, rr.request_bytes, rr.response_bytes,
                  rr.delay_us > 0 ? fmt::format(", answers held {} us", rr.delay_us) : ""));
  if (rr.latency.count > 0) lines.push_back("rr round trip\t:" + percentiles(rr.latency));
  lines.push_back(fmt::format("rr cpu\t\t:{:.3f} us per transaction (this process)",
                              rr.cpu_us_per_transaction));
  if (rr.lost > 0)
    lines.push_back(fmt::format("rr lost\t\t:{} requests unanswered (UDP; re-sent)", rr.lost));
  if (rr.flows.size() > 1 && (r.spec.output.verbose || rr.flows.size() <= flow_lines))
    for (const RrFlowResult& f : rr.flows)
      lines.push_back(fmt::format("rr flow {}\t:{} ({:.1f}/s){}", f.flow, f.transactions,
                                  f.transactions_per_s,
                                  f.latency.count > 0 ? ", " + percentiles(f.latency) : ""));
  return lines;
}

}  // namespace xttcp
