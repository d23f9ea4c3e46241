// The UDP figures of a result (docs/udp.md), from the flow counters: the window's datagrams and
// rate, and the whole run's loss, exact when the senders reported their counts.
#pragma once

#include <string>
#include <vector>

#include "engine/result.hh"
#include "engine/udp/flow_registry.hh"

namespace xttcp::udp {

// Window figures: datagrams between the two snapshots and their rate; the datagram size is the
// sender's -b, or the receiver's mean.
UdpResult window_figures(const TestSpec& spec, const std::vector<FlowRecord>& begin,
                         const std::vector<FlowRecord>& end, double seconds);

// Adds the whole run to `udp`. Sender: every flow's sent count. Receiver: per flow and in total,
// lost = sent − received when `senders` (the flows of every sender's result) reported counts,
// else expected − received from sequence gaps.
void add_run_figures(UdpResult& udp, Role role, const std::vector<FlowRecord>& run_flows,
                     const std::vector<UdpFlowResult>& senders);

// The per-flow sent counts in a sender's result ("udp.flows"); empty when the result has none
// (TCP, or not a sender).
std::vector<UdpFlowResult> sent_flows_in(const Result& sender);

}  // namespace xttcp::udp
