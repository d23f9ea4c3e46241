#include "engine/run/result_checks.hh"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>

#include "engine/report/plausible_result.hh"

namespace xttcp {

namespace {

// The largest of a "min default max" sysctl the sender's host recorded (0: not recorded).
uint64_t sysctl_max(const Result& r, std::string_view name) {
  for (const auto& [key, value] : r.host.sysctls) {
    if (key != name) continue;
    const size_t last = value.find_last_of(' ');
    const std::string tail = last == std::string::npos ? value : value.substr(last + 1);
    return std::strtoull(tail.c_str(), nullptr, 10);
  }
  return 0;
}

}  // namespace

std::optional<std::string> refused_peer_result(const Result& peer) {
  const Status plausible = check_plausible(peer, peer_frame_rules);
  if (plausible) return std::nullopt;
  return fmt::format("the {}'s result is refused (its figures are not shown): {}",
                     to_string(peer.role), plausible.error().message);
}

uint64_t in_flight_bound(const Result& sender) {
  const uint64_t per_connection =
      sysctl_max(sender, "net.ipv4.tcp_wmem") + sysctl_max(sender, "net.ipv4.tcp_rmem");
  return per_connection * sender.connections_tested;
}

std::optional<std::string> count_mismatch(const Result& sender, const Result& receiver) {
  if (sender.total_bytes == 0) return std::nullopt;
  // UDP may lose much, but a receiver that counted none of it measured nothing of this test.
  if (sender.spec.workload.protocol == Protocol::udp) {
    if (receiver.total_bytes > 0) return std::nullopt;
    return fmt::format(
        "the receiver counted none of the {} bytes this sender sent: nothing of the test reached "
        "it (a firewall dropping UDP, or a receiver not listening for UDP: its -u)",
        sender.total_bytes);
  }
  if (receiver.total_bytes * 2 >= sender.total_bytes) return std::nullopt;
  // Many connections behind a slow receiver hold much in their buffers at the window's edge
  // (10,000 connections under a sanitizer: 44 % counted); what they can hold is no mismatch.
  // Nothing counted at all always is.
  if (receiver.total_bytes > 0 &&
      sender.total_bytes - receiver.total_bytes <= in_flight_bound(sender))
    return std::nullopt;
  return fmt::format(
      "the receiver counted {} bytes, {:.1f} % of the {} the sender sent: the "
      "bytes did not reach it",
      receiver.total_bytes,
      100.0 * static_cast<double>(receiver.total_bytes) / static_cast<double>(sender.total_bytes),
      sender.total_bytes);
}

std::optional<std::string> silent_tail(const Result& receiver, double late_s) {
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
  const double awake = std::max(receiver.duration_s - late_s, 0.0);  // the time we could see
  if (tail - late_s <= std::max({1.0, awake / 5, 4 * longest_gap})) return std::nullopt;
  return fmt::format(
      "no data arrived in the last {:.2f} s of the {:.2f} s window: the sender "
      "stopped early (a shorter -t, or it went away)",
      tail, receiver.duration_s);
}

std::optional<std::string> host_pause_note(double late_s, double window_s) {
  if (late_s < 0.25 || late_s < window_s / 20) return std::nullopt;
  return fmt::format(
      "this host did not run xttcp for {:.2f} s of the {:.2f} s window (its clock woke that "
      "late: an overloaded or paused machine); the figures include that time",
      late_s, window_s);
}

}  // namespace xttcp
