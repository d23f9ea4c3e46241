// The results message one end of an iperf3 test sends the other (server_run.cc, client_run.cc),
// from the engine's measured window. Pure.
#pragma once

#include <vector>

#include "engine/backend/data_worker.hh"
#include "engine/iperf3/results.hh"
#include "engine/run/timeline.hh"

namespace xttcp::iperf3 {

// This end's results, as 3.12 sends them: its CPU over the window (process time, as 3.12
// counts it), each stream's bytes in the window by flow slot (ids 1, 3, 4, ...), a sending
// end's retransmits (TCP_INFO) and the congestion control in use.
Results our_results(bool sending, const MeasuredWindow& window,
                    const std::vector<WorkerReport>& reports);

}  // namespace xttcp::iperf3
