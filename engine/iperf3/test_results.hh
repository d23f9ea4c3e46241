// The results message one end of an iperf3 test sends the other (server_run.cc, client_run.cc),
// from the engine's measured window. Pure.
#pragma once

#include <vector>

#include "engine/backend/data_worker.hh"
#include "engine/iperf3/directions.hh"
#include "engine/iperf3/results.hh"
#include "engine/run/timeline.hh"

namespace xttcp::iperf3 {

// This end's results, as 3.12 sends them: its CPU over the window (process time, as 3.12
// counts it), each stream's bytes in the window by flow slot (ids 1, 3, 4, ...), a sending
// end's retransmits (TCP_INFO) and the congestion control in use. UDP (the window's datagram
// counts): a sender's datagrams sent; a receiver's lost datagrams, jitter and highest sequence
// number, each after the omit period (3.12 takes the omitted ones off).
// `first`: the test's index of the window's first stream (its slot 0), for the ids.
Results our_results(bool sending, const MeasuredWindow& window,
                    const std::vector<WorkerReport>& reports, std::size_t first = 0);

// This end's results of a test of groups (directions.hh), from each group's window and its
// workers' reports: each group's; the message's (every stream, in stream order; the CPU of the
// first group, the groups' windows being one span of one process's time; retransmits known if
// any group's sender knows them); and every stream's datagrams out of order (a sending group's
// 0).
struct OurResults {
  std::vector<Results> by_group;
  Results all;
  std::vector<int64_t> out_of_order;
};
OurResults our_results(const std::vector<StreamGroup>& groups,
                       const std::vector<MeasuredWindow>& windows,
                       const std::vector<std::vector<WorkerReport>>& reports);

// UDP: each stream's datagrams that came out of order (or twice) in the window, by flow slot;
// the results message has no such key: only the receiving end knows them.
std::vector<int64_t> out_of_order(const MeasuredWindow& window);

}  // namespace xttcp::iperf3
