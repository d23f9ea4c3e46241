// The TCP sender's connection set-up: ConnectEx on every flow at once, awaited on the worker's
// completion port, bounded by --connect-timeout (control path).
#pragma once

#include <chrono>
#include <functional>
#include <vector>

#include "base/status.hh"
#include "engine/net/address.hh"
#include "io_backends/iocp/iocp_port.hh"
#include "io_backends/iocp/winsock_extensions.hh"

namespace xttcp::iocp {

struct ConnectTarget {
  SOCKET socket = INVALID_SOCKET;  // bound, associated with the port
  bool skips_port = false;         // CompletionPort::associate's answer for it
  SocketAddress remote;
};

// A fresh socket for target i after its connect was refused (the caller closes the old one:
// a refused socket is not reused).
using ReopenTarget = std::function<Expected<ConnectTarget>(std::size_t)>;

// Connects every target; on success each socket has SO_UPDATE_CONNECT_CONTEXT set. A refused
// connect (the receiver not listening yet) is tried again on a fresh socket from `reopen` every
// 100 ms until `timeout`, as NTttcp does. On failure every connect still pending is cancelled
// and its completion drained before returning, so the port holds nothing of this step. Errors,
// one line:
//   "iocp: connect to 127.0.0.1:5001: host unreachable (WSAEHOSTUNREACH)"
//   "iocp: 2 of 3 connections to 127.0.0.1 (first: port 5001) not established within 10 s
//    (--connect-timeout): connection refused, 200 tries (is the receiver running?)"
Status connect_all(CompletionPort& port, ConnectExFunction connect_ex,
                   std::vector<ConnectTarget> targets, const ReopenTarget& reopen,
                   std::chrono::seconds timeout);

}  // namespace xttcp::iocp
