// Connects every flow of a sender worker at once: non-blocking connects awaited together,
// refused ones retried, bounded by --connect-timeout, with -a / -f / --no-delay /
// --fq-rate-limit applied. Shared by every kernel-socket backend (control path).
#pragma once

#include <vector>

#include "base/unique_fd.hh"
#include "engine/backend/data_worker.hh"
#include "engine/stats/tcp_info.hh"

namespace xttcp {

// The connected sockets in the order of context.plan->flows (blocking mode as created:
// non-blocking), or one line saying which connection failed and why. -rb / -sb (Windows
// dialect) are set on each; what the kernel made of them goes into `notes`.
Expected<std::vector<UniqueFd>> connect_flows(const WorkerContext& context,
                                              std::vector<std::string>& notes);

// TCP_INFO of flow `flow`'s connection at the end of the run. Its remote is the address it
// connected to even when the peer has gone by then (getpeername fails on a reset socket).
ConnectionStats sender_connection_stats(const WorkerContext& context, size_t flow, int fd);

}  // namespace xttcp
