// The iperf2 dialect's first bytes on each TCP stream on Windows (the Linux backends':
// io_backends/common/iperf2_stream_start.hh): a client writes iperf 2's header on every
// connection and reads the server's acknowledgement before the test (unread, it would turn the
// client's close into a reset); a server acknowledges every stream it accepts. Synchronous
// calls, before the stream's first overlapped operation is posted (a synchronous call queues no
// completion). Nothing in the other dialects. Control path.
#pragma once

#include <string>
#include <vector>

#include "base/status.hh"
#include "engine/net/os_socket.hh"
#include "engine/spec.hh"

namespace xttcp::iocp {

// Client: header out, acknowledgements in (waited for up to 2 s; an iperf 2 server before 2.1
// sends none, which a note says). `sockets` are connected.
Status start_iperf2_streams(const TestSpec& spec, const std::vector<SOCKET>& sockets,
                            std::vector<std::string>& notes);

// Server: the acknowledgement on a connection just accepted (best effort: a client gone already
// shows on the data path).
void acknowledge_iperf2_stream(const TestSpec& spec, SOCKET socket);

}  // namespace xttcp::iocp
