// What every frame a sending worker builds shares (the stream sender's and the --rr
// requester's): both MACs and both addresses, the peer's MAC from --peer-mac, from this very
// port (--local), or resolved by ARP/ND on the control path.
#pragma once

#include <string>
#include <vector>

#include "base/status.hh"
#include "engine/backend/data_worker.hh"
#include "io_backends/dpdk/frame.hh"
#include "io_backends/dpdk/runtime.hh"

namespace xttcp::dpdk {

// Ports left 0; notes (worker 0 only) say how the MAC was found and warn of a missing -a.
Expected<frame::UdpEndpoints> sending_endpoints(const WorkerContext& context, Port& port,
                                                std::vector<std::string>& notes);

// A flow's UDP source port: -f's, else one of the ephemeral range by its slot, so flows differ
// by source port (RSS spreads them; a requester tells its responses apart by it).
uint16_t flow_source_port(const FlowPlan& plan);

}  // namespace xttcp::dpdk
