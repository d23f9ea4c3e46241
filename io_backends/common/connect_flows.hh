// Connects every flow of a sender worker at once: non-blocking connects awaited together,
// bounded by --connect-timeout, with -a / -f / --no-delay / --fq-rate-limit applied. Shared by
// every kernel-socket backend (control path).
#pragma once

#include <vector>

#include "engine/net/unique_fd.hh"
#include "io_backends/backend.hh"

namespace xttcp {

// The connected sockets in the order of context.plan->flows (blocking mode as created:
// non-blocking), or one line saying which connection failed and why. -rb / -sb (Windows
// dialect) are set on each; what the kernel made of them goes into `notes`.
Expected<std::vector<UniqueFd>> connect_flows(const WorkerContext& context,
                                              std::vector<std::string>& notes);

}  // namespace xttcp
