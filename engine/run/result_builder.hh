// Turns a measured window and the workers' reports into the one Result model.
#pragma once

#include <string>
#include <vector>

#include "engine/backend/data_worker.hh"
#include "engine/plan.hh"
#include "engine/result.hh"
#include "engine/run/timeline.hh"

namespace xttcp {

struct RunFacts {
  const TestSpec* spec = nullptr;
  const Plan* plan = nullptr;
  std::string backend;
  HostInfo host;
  uint32_t negotiated_cycle_s = 0;
  uint32_t threads_created = 0;
  // UDP runs: every flow's counters after the workers stopped, and (receiver) the per-flow sent
  // counts from the senders' results.
  std::vector<udp::FlowRecord> udp_run_flows;
  std::vector<UdpFlowResult> udp_senders;
  bool udp_gro = false;           // the offloads the data path used (also with -H, where
  uint32_t udp_gso_segments = 0;  // there are no worker reports per test)
};

Result build_result(const RunFacts& facts, const MeasuredWindow& window,
                    const std::vector<WorkerReport>& reports);

// --bidir: the host's CPU over the window moved both directions' bytes, so each direction's
// cycles/byte is over both directions' bytes (nearly the same figure in each, said in a note):
// its own bytes alone would count the other direction's work as its own.
void share_cpu_between_directions(Result& forth, Result& back);

}  // namespace xttcp
