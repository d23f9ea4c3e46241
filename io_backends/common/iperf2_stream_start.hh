// The iperf2 dialect's first bytes on each TCP stream (engine/iperf2/stream_preamble.hh): a
// client writes iperf 2's header on every connection and reads the server's acknowledgement
// (unread, it would turn the client's close into a reset); a server acknowledges every stream
// it accepts. Nothing in the other dialects. Control path, shared by the kernel-socket backends.
#pragma once

#include <string>
#include <vector>

#include "base/status.hh"
#include "base/unique_fd.hh"
#include "engine/spec.hh"

namespace xttcp {

// Client: header out, acknowledgements in (waited for up to 2 s; an iperf 2 server before 2.1
// sends none, which a note says). `sockets` are connected and non-blocking.
Status start_iperf2_streams(const TestSpec& spec, const std::vector<UniqueFd>& sockets,
                            std::vector<std::string>& notes);

// Server: the acknowledgement on a connection just accepted (best effort: a client gone already
// shows on the data path).
void acknowledge_iperf2_stream(const TestSpec& spec, int fd);

}  // namespace xttcp
