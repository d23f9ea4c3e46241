// --rr sockets (docs/rr.md) for the kernel-socket backends (control path): UDP flows
// connected to the responder, and the responder's bound UDP sockets and TCP listeners, one per
// flow of the worker, all non-blocking.
#pragma once

#include <string>
#include <vector>

#include "base/unique_fd.hh"
#include "engine/backend/data_worker.hh"

namespace xttcp {

// One connected UDP socket per flow, in the order of context.plan->flows (-a / -f applied;
// --busy-poll too, with what the first socket got in `notes`).
Expected<std::vector<UniqueFd>> open_rr_udp_requesters(const WorkerContext& context,
                                                       std::vector<std::string>& notes);
// One bound UDP socket per flow of the worker (--busy-poll applied).
Expected<std::vector<UniqueFd>> open_rr_udp_responders(const WorkerContext& context);
// One TCP listener per flow of the worker.
Expected<std::vector<UniqueFd>> open_rr_tcp_listeners(const WorkerContext& context);
// The requester's sockets, one per flow: connected UDP sockets, or TCP connections made as
// every sender makes them (connect_flows, which leaves its notes in `notes`).
Expected<std::vector<UniqueFd>> open_rr_requesters(const WorkerContext& context, bool udp,
                                                   std::vector<std::string>& notes);
}  // namespace xttcp
