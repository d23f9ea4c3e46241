// What the ends write at the start of each TCP connection, decided from the spec: in the iperf2
// dialect the client's header (so an iperf 2 server knows the test's streams and length) and
// the server's acknowledgement; nothing otherwise. Control path: written right after the connect
// or the accept.
#pragma once

#include <vector>

#include "engine/spec.hh"

namespace xttcp::iperf2 {

std::vector<unsigned char> tcp_stream_preamble(const TestSpec& spec);

// What a receiver writes on each TCP connection it accepts: iperf 2's header acknowledgement in
// the iperf2 dialect (an iperf 2 or xttcp client reads it), nothing otherwise.
std::vector<unsigned char> tcp_accept_reply(const TestSpec& spec);

}  // namespace xttcp::iperf2
