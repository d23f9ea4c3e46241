#include "engine/iperf3/test_results.hh"

namespace xttcp::iperf3 {

Results our_results(bool sending, const MeasuredWindow& window,
                    const std::vector<WorkerReport>& reports) {
  Results r;
  const double busy_s = (window.system_end.process_user_s - window.system_begin.process_user_s) +
                        (window.system_end.process_system_s - window.system_begin.process_system_s);
  const double wall = window.seconds > 0 ? window.seconds : 1;
  r.cpu_user =
      100.0 * (window.system_end.process_user_s - window.system_begin.process_user_s) / wall;
  r.cpu_system =
      100.0 * (window.system_end.process_system_s - window.system_begin.process_system_s) / wall;
  r.cpu_total = 100.0 * busy_s / wall;
  r.sender_has_retransmits = sending ? 1 : -1;
  std::vector<int64_t> retransmits(window.end.size(), 0);
  for (const WorkerReport& report : reports)
    for (const ConnectionStats& c : report.connection_stats) {
      if (c.stream && *c.stream < retransmits.size()) retransmits[*c.stream] = c.total_retrans;
      if (!c.congestion.empty()) r.congestion_used = c.congestion;
    }
  for (std::size_t slot = 0; slot < window.end.size(); ++slot) {
    StreamTotals s;
    s.id = slot == 0 ? 1 : static_cast<int32_t>(slot) + 2;
    s.bytes = window.end[slot].bytes - (slot < window.begin.size() ? window.begin[slot].bytes : 0);
    s.retransmits = sending ? retransmits[slot] : -1;
    s.end_time = window.seconds;
    r.streams.push_back(s);
  }
  return r;
}

}  // namespace xttcp::iperf3
