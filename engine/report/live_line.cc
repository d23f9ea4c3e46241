#include "engine/report/live_line.hh"

#include <fmt/format.h>

#include <algorithm>

#include "base/units.hh"

namespace xttcp {

namespace {

std::string us(uint64_t ns) { return fmt::format("{:.2f}", static_cast<double>(ns) / 1000.0); }

std::string progress_text(const LiveProgress& p) {
  std::string where;
  switch (p.phase) {
    case LiveProgress::Phase::warmup: where = "warm-up "; break;
    case LiveProgress::Phase::cooldown: where = "cool-down"; break;
    case LiveProgress::Phase::measure: break;
  }
  if (p.phase != LiveProgress::Phase::cooldown) {
    where += fmt::format("{:.1f}", std::max(p.elapsed_s, 0.0));
    if (p.length_s > 0) where += fmt::format("/{:g}", p.length_s);
    where += " s";
  }
  if (p.left_s) return fmt::format("[{}, ends in {:.1f} s]", where, std::max(*p.left_s, 0.0));
  if (p.until != nullptr) return fmt::format("[{}, {}]", where, p.until);
  return "[" + where + "]";
}

}  // namespace

std::string live_line(const LiveFigures& figures, const std::optional<LiveProgress>& progress) {
  std::string line;
  if (figures.rr) {
    const LiveTransactions& rr = *figures.rr;
    line = fmt::format("Real-time transactions: {:.1f}/s {}", rr.per_second,
                       rr.requester ? "completed" : "answered");
    if (rr.round_trips > 0)
      line += fmt::format(", round trip p50 {} p99 {} us", us(rr.p50_ns), us(rr.p99_ns));
  } else {
    line = "Real-time throughput: " + format_bps(figures.bits_per_second);
  }
  if (progress) line += "  " + progress_text(*progress);
  return line;
}

}  // namespace xttcp
