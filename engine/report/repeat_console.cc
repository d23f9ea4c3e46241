#include "engine/report/repeat_console.hh"

#include <fmt/format.h>

#include <cmath>

#include "base/units.hh"
#include "engine/analysis/run_set_statistics.hh"

namespace xttcp {

namespace {

// A figure in at most 4 significant digits, without exponents for the sizes runs produce.
std::string figure(double v) {
  if (!std::isfinite(v)) return "-";
  const double a = std::fabs(v);
  if (a >= 1000) return fmt::format("{:.0f}", v);
  if (a >= 1 || a == 0) return fmt::format("{:.2f}", v);
  return fmt::format("{:#.4g}", v);  // 0.4160: four digits, its zeros kept
}

std::string interval(const SampleSummary& s) {
  if (!s.ci_low || !s.ci_high) return "- (one run)";
  return figure(*s.ci_low) + " .. " + figure(*s.ci_high);
}

std::string us(uint64_t ns) { return fmt::format("{:.2f}", static_cast<double>(ns) / 1000.0); }

// What the run measured, in its own words.
std::string own_figures(const Result& r) {
  if (r.rr) {
    std::string text = fmt::format("{:.1f} transactions/s", r.rr->transactions_per_s);
    if (r.rr->latency.count > 0)
      text += fmt::format(", round trip p50 {} p99 {} us", us(r.rr->latency.p50_ns),
                          us(r.rr->latency.p99_ns));
    return text;
  }
  std::string text = fmt::format("{} over {:.2f} s", format_bps(r.throughput_bps()), r.duration_s);
  if (r.spec.workload.protocol == Protocol::tcp)
    text += fmt::format(", retrans segs {}", r.tcp.retrans_segs);
  if (r.udp) text += fmt::format(", {:.2f}% lost", r.udp->loss_percent);
  text += fmt::format(", cycles/byte {:.2f}", r.cpu.cycles_per_byte);
  return text;
}

}  // namespace

std::string repeat_test_line(const Result& run, uint32_t index, uint32_t count) {
  std::string line = fmt::format("test {} of {}\t:{}", index, count, own_figures(run));
  if (run.cut_short) line += fmt::format(" (cut short: {})", run.stop.message);
  if (run.peer) {
    const Result& peer = *run.peer;
    line += fmt::format("; {} ", peer.role == Role::receiver ? "receiver" : "sender");
    line += peer.rr ? fmt::format("{:.1f} transactions/s", peer.rr->transactions_per_s)
                    : format_bps(peer.throughput_bps());
  }
  return line;
}

std::vector<std::string> repeat_summary_lines(const std::vector<Result>& runs, uint32_t requested) {
  std::vector<std::string> lines;
  if (runs.empty()) return lines;
  const std::string ran = runs.size() == requested
                              ? fmt::format("{} tests", runs.size())
                              : fmt::format("{} of {} tests", runs.size(), requested);
  lines.push_back(fmt::format("#####  Summary of {} (--repeat):  #####", ran));
  for (size_t i = 0; i < runs.size(); ++i)
    lines.push_back(repeat_test_line(runs[i], static_cast<uint32_t>(i + 1), requested));
  constexpr const char* row = "{:<18}{:<8}{:>10}{:>10}{:>10}{:>10}{:>8}  {}";
  lines.push_back(
      fmt::format(row, "metric", "unit", "median", "mean", "min", "max", "cv", "95% CI"));
  for (const MetricStatistics& m : run_set_statistics(runs)) {
    const SampleSummary& s = m.summary;
    lines.push_back(fmt::format(row, m.metric->label, m.metric->unit, figure(s.median),
                                figure(s.mean), figure(s.min), figure(s.max),
                                std::isfinite(s.cv) ? fmt::format("{:.1f}%", s.cv * 100) : "-",
                                interval(s)));
  }
  lines.push_back(
      fmt::format("(this end's figures; cv: standard deviation / mean; CI: {})", mean_ci_method));
  return lines;
}

}  // namespace xttcp
