// accept() failures shared by every kernel-socket receiver (control path): the rest itself is
// engine/net/listener_rest.hh, which the engine's control ports use too. Portable: the iocp
// backend's listeners rest the same way (with Winsock's codes, io_backends/iocp/tcp_receiver).
#pragma once

#include <string>

#include "engine/backend/data_worker.hh"
#include "engine/net/listener_rest.hh"

namespace xttcp {

// A listener's line (from ListenerRest) for the engine's log; an empty line says nothing.
inline void post_notice(const WorkerContext& context, const std::string& line, bool error) {
  if (!line.empty() && context.on_notice) context.on_notice(line, error);
}

}  // namespace xttcp
