#include "engine/run/result_checks.hh"

#include <fmt/format.h>

#include <algorithm>

namespace xttcp {

std::optional<std::string> count_mismatch(const Result& sender, const Result& receiver) {
  if (sender.spec.workload.protocol != Protocol::tcp || sender.total_bytes == 0)
    return std::nullopt;
  if (receiver.total_bytes * 2 >= sender.total_bytes) return std::nullopt;
  return fmt::format(
      "the receiver counted {} bytes, {:.1f} % of the {} this sender sent: the "
      "bytes did not reach it",
      receiver.total_bytes,
      100.0 * static_cast<double>(receiver.total_bytes) / static_cast<double>(sender.total_bytes),
      sender.total_bytes);
}

std::optional<std::string> silent_tail(const Result& receiver) {
  if (receiver.duration_s <= 0 || receiver.intervals.empty()) return std::nullopt;
  double last_data_end = 0;  // s into the window
  double longest_gap = 0;
  bool any = false;
  for (const IntervalSample& interval : receiver.intervals) {
    if (interval.start_s < 0 || interval.bytes == 0) continue;  // warm-up, or nothing came
    if (any) longest_gap = std::max(longest_gap, interval.start_s - last_data_end);
    last_data_end = interval.start_s + interval.seconds;
    any = true;
  }
  if (!any) return std::nullopt;  // nothing at all: the totals say so
  const double tail = receiver.duration_s - last_data_end;
  if (tail <= std::max({1.0, receiver.duration_s / 5, 4 * longest_gap})) return std::nullopt;
  return fmt::format(
      "no data arrived in the last {:.2f} s of the {:.2f} s window: the sender "
      "stopped early (a shorter -t, or it went away)",
      tail, receiver.duration_s);
}

}  // namespace xttcp
