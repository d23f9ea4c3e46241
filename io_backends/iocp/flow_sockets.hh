// The sockets of a sending worker's flows (the stream senders and the --rr requester), each
// opened for overlapped I/O and associated with the worker's completion port (key 0). Control
// path.
#pragma once

#include "base/status.hh"
#include "engine/net/address.hh"
#include "io_backends/iocp/iocp_port.hh"
#include "io_backends/iocp/overlapped_socket.hh"
#include "io_backends/iocp/winsock_extensions.hh"

namespace xttcp::iocp {

struct FlowSocket {
  OverlappedSocket socket;
  bool skips_port = false;  // CompletionPort::associate's answer: successes complete inline
};

// A TCP socket ready for ConnectEx towards `remote`: `options` set, bound to `source` (ConnectEx
// needs a bound socket: -a's address and -f's port, else the wildcard and an ephemeral port).
// ConnectEx's address is loaded into `connect_ex` on first use.
// Error: "iocp: connect to <remote>: <reason>".
Expected<FlowSocket> open_tcp_flow(CompletionPort& port, const SocketAddress& remote,
                                   const SocketAddress& source, const SocketOptions& options,
                                   ConnectExFunction& connect_ex);

// A UDP socket towards `remote`: `options` set, bound to `source` when it names an address or a
// port, connected unless `unconnected` (-uc: every send names its destination).
// Error: "iocp: UDP to <remote>: <reason>".
Expected<FlowSocket> open_udp_flow(CompletionPort& port, const SocketAddress& remote,
                                   const SocketAddress& source, const SocketOptions& options,
                                   bool unconnected);

}  // namespace xttcp::iocp
