// accept() failures shared by every kernel-socket receiver (control path): the rest itself is
// engine/net/listener_rest.hh, which the engine's control ports use too. Portable: the iocp
// backend's listeners rest the same way (with Winsock's codes, io_backends/iocp/tcp_receiver).
#pragma once

#include <string>

#include "engine/backend/data_worker.hh"
#include "engine/net/listener_rest.hh"
#include "engine/net/peer_admission.hh"

namespace xttcp {

// A listener's line (from ListenerRest) for the engine's log; an empty line says nothing.
inline void post_notice(const WorkerContext& context, const std::string& line, bool error) {
  if (!line.empty() && context.on_notice) context.on_notice(line, error);
}

// A shortage's line: said, and when it begins one (`line` set), counted for the test it falls
// in, whose connections then wait unserved (the run says so at its end).
inline void say_shortage(const WorkerContext& context, const std::string& line) {
  if (line.empty()) return;
  if (context.admission != nullptr) context.admission->accept_shortage_began();
  post_notice(context, line, true);
}

// A listener's "works again" line (ListenerRest::on_success), if it was short: said, and the
// shortage is over.
inline void say_back(const WorkerContext& context, const std::string& line) {
  if (line.empty()) return;
  if (context.admission != nullptr) context.admission->accept_shortage_ended();
  post_notice(context, line, false);
}

}  // namespace xttcp
