// The TCP sender's connection set-up: ConnectEx on every flow at once, awaited on the worker's
// completion port, bounded by --connect-timeout (control path).
#pragma once

#include <chrono>
#include <vector>

#include "engine/net/address.hh"
#include "io_backends/iocp/iocp_port.hh"
#include "io_backends/iocp/winsock_extensions.hh"

namespace xttcp::iocp {

struct ConnectTarget {
  SOCKET socket = INVALID_SOCKET;  // bound, associated with the port
  bool skips_port = false;         // CompletionPort::associate's answer for it
  SocketAddress remote;
};

// Connects every target; on success each socket has SO_UPDATE_CONNECT_CONTEXT set. On failure
// every connect still pending is cancelled and its completion drained before returning, so the
// port holds nothing of this step. Errors, one line:
//   "iocp: connect to 127.0.0.1:5001: connection refused (WSAECONNREFUSED)"
//   "iocp: 2 of 3 connections to 127.0.0.1 (first: port 5001) not established within 10 s
//    (--connect-timeout)"
Status connect_all(CompletionPort& port, ConnectExFunction connect_ex,
                   const std::vector<ConnectTarget>& targets, std::chrono::seconds timeout);

}  // namespace xttcp::iocp
