#include "engine/iperf3/test_results.hh"

#include <algorithm>

namespace xttcp::iperf3 {

namespace {

// Each flow slot's datagram counts over the window (a slot is one stream).
std::vector<udp::UdpFlowSnapshot> udp_by_slot(const MeasuredWindow& window) {
  std::vector<udp::UdpFlowSnapshot> slots(window.end.size());
  for (const udp::FlowRecord& r : udp::delta(window.udp_end, window.udp_begin))
    if (r.slot < slots.size() && udp::is_sender_flow_id(r.flow_id)) {
      udp::add_counts(slots[r.slot], r.counters);
      slots[r.slot].jitter_ns = r.counters.jitter_ns;
    }
  return slots;
}

}  // namespace

std::vector<int64_t> out_of_order(const MeasuredWindow& window) {
  std::vector<int64_t> out;
  for (const udp::UdpFlowSnapshot& s : udp_by_slot(window))
    out.push_back(static_cast<int64_t>(s.reordered + s.duplicates));
  return out;
}

Results our_results(bool sending, const MeasuredWindow& window,
                    const std::vector<WorkerReport>& reports, std::size_t first) {
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
    s.id = stream_id(first + slot);
    s.bytes = window.end[slot].bytes - (slot < window.begin.size() ? window.begin[slot].bytes : 0);
    s.retransmits = sending ? retransmits[slot] : -1;
    s.end_time = window.seconds;
    r.streams.push_back(s);
  }
  if (window.udp_end.empty()) return r;
  r.sender_has_retransmits = sending ? 0 : -1;  // a UDP sender knows none
  const std::vector<udp::UdpFlowSnapshot> udp = udp_by_slot(window);
  for (std::size_t slot = 0; slot < r.streams.size(); ++slot) {
    StreamTotals& s = r.streams[slot];
    s.retransmits = -1;
    if (sending) {
      s.packets = static_cast<int64_t>(udp[slot].datagrams);
      continue;
    }
    s.packets = static_cast<int64_t>(udp[slot].expected);
    s.errors = static_cast<int64_t>(udp[slot].lost());
    s.jitter_s = static_cast<double>(udp[slot].jitter_ns) / 1e9;
  }
  return r;
}

OurResults our_results(const std::vector<StreamGroup>& groups,
                       const std::vector<MeasuredWindow>& windows,
                       const std::vector<std::vector<WorkerReport>>& reports) {
  OurResults ours;
  for (std::size_t g = 0; g < groups.size() && g < windows.size() && g < reports.size(); ++g) {
    const StreamGroup& group = groups[g];
    Results r = our_results(group.sending, windows[g], reports[g], group.first);
    std::vector<int64_t> disordered =
        group.sending ? std::vector<int64_t>(group.count, 0) : out_of_order(windows[g]);
    disordered.resize(group.count);  // a window never measured has no slots
    ours.out_of_order.insert(ours.out_of_order.end(), disordered.begin(), disordered.end());
    if (g == 0) {
      ours.all = r;
    } else {
      ours.all.sender_has_retransmits =
          std::max(ours.all.sender_has_retransmits, r.sender_has_retransmits);
      if (!ours.all.congestion_used) ours.all.congestion_used = r.congestion_used;
      ours.all.streams.insert(ours.all.streams.end(), r.streams.begin(), r.streams.end());
    }
    ours.by_group.push_back(std::move(r));
  }
  return ours;
}

}  // namespace xttcp::iperf3
