#include "engine/udp/udp_result.hh"

#include <algorithm>

namespace xttcp::udp {

UdpResult window_figures(const TestSpec& spec, const std::vector<FlowRecord>& begin,
                         const std::vector<FlowRecord>& end, double seconds) {
  UdpResult udp;
  const UdpFlowSnapshot window = sum(delta(end, begin));
  udp.window_datagrams = window.datagrams;
  udp.window_pps = seconds > 0 ? static_cast<double>(window.datagrams) / seconds : 0.0;
  if (spec.role == Role::receiver)
    udp.datagram_size =
        window.datagrams > 0 ? static_cast<uint32_t>(window.bytes / window.datagrams) : 0;
  else
    udp.datagram_size = spec.workload.send_buffer;
  return udp;
}

void add_run_figures(UdpResult& udp, Role role, const std::vector<FlowRecord>& run_flows,
                     const std::vector<UdpFlowResult>& senders) {
  udp.flows.clear();
  udp.sent = udp.received = udp.lost = udp.duplicates = udp.reordered = 0;
  udp.jitter_ms = 0;
  udp.unattributed = 0;
  udp.foreign_datagrams = udp.foreign_bytes = udp.foreign_end_markers = 0;
  udp.headerless_datagrams = udp.headerless_bytes = 0;
  if (role != Role::receiver) {
    for (const FlowRecord& f : run_flows) {
      UdpFlowResult flow;
      flow.flow = f.flow_id;
      flow.sent = f.counters.datagrams;
      udp.sent += flow.sent;
      udp.flows.push_back(flow);
    }
    return;
  }

  uint64_t reported_sent = 0;
  for (const UdpFlowResult& s : senders) reported_sent += s.sent;
  const bool exact = !senders.empty();
  const ForeignCounts foreign = foreign_counts(run_flows);
  udp.foreign_datagrams = foreign.datagrams;
  udp.foreign_bytes = foreign.bytes;
  udp.foreign_end_markers = foreign.end_markers;
  udp.headerless_datagrams = foreign.headerless_datagrams;
  udp.headerless_bytes = foreign.headerless_bytes;
  bool any_native = false, any_compat = false;
  for (const FlowRecord& f : run_flows) {
    if (is_foreign_record(f.flow_id)) continue;  // no test's: counted apart above
    const UdpFlowSnapshot& c = f.counters;
    if (f.flow_id == retired_flow) {  // whole in the totals, listed under no flow
      any_native = any_native || c.unique > 0;
      udp.unattributed += c.datagrams;
      udp.received += c.unique + c.compat_datagrams;
      udp.duplicates += c.duplicates;
      udp.reordered += c.reordered;
      if (!exact) udp.lost += c.lost();
      continue;
    }
    UdpFlowResult flow;
    flow.flow = f.flow_id;
    flow.native = f.flow_id != compat_flow;
    if (flow.native) {
      any_native = true;
      flow.received = c.unique;
      flow.duplicates = c.duplicates;
      flow.reordered = c.reordered;
      flow.jitter_ms = static_cast<double>(c.jitter_ns) / 1e6;
      auto sender = std::find_if(senders.begin(), senders.end(),
                                 [&](const UdpFlowResult& s) { return s.flow == f.flow_id; });
      if (sender != senders.end()) {
        flow.sent = sender->sent;
        flow.lost = flow.sent > flow.received ? flow.sent - flow.received : 0;
      } else {
        flow.lost = c.lost();
      }
    } else {
      any_compat = true;
      flow.received = c.datagrams;
    }
    udp.received += flow.received;
    udp.duplicates += flow.duplicates;
    udp.reordered += flow.reordered;
    udp.jitter_ms = std::max(udp.jitter_ms, flow.jitter_ms);
    if (!exact) udp.lost += flow.lost;
    udp.flows.push_back(flow);
  }
  udp.payload = any_native ? (any_compat ? "mixed" : "native") : (any_compat ? "compat" : "none");
  if (exact) {
    // Flows that never delivered a datagram are lost whole: count from the senders' total.
    udp.sent = reported_sent;
    udp.lost = reported_sent > udp.received ? reported_sent - udp.received : 0;
    udp.loss_source = "sender count";
  } else {
    udp.loss_source = any_native ? "sequence gaps" : "none";
  }
  const uint64_t base = exact ? udp.sent : udp.received + udp.lost;
  udp.loss_percent =
      base > 0 ? 100.0 * static_cast<double>(udp.lost) / static_cast<double>(base) : 0.0;
}

std::vector<UdpFlowResult> sent_flows_in(const Result& sender) {
  if (sender.role != Role::sender || !sender.udp) return {};
  std::vector<UdpFlowResult> flows;
  for (const UdpFlowResult& flow : sender.udp->flows) {
    UdpFlowResult sent;
    sent.flow = flow.flow;
    sent.sent = flow.sent;
    flows.push_back(sent);
  }
  return flows;
}

}  // namespace xttcp::udp
