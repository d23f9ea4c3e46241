// NTTTCP-for-Linux's console text: the -V flags block and the results after "Test cycle
// finished." Pure functions over TestSpec and Result; the caller prints them through Log.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/result.hh"
#include "engine/spec.hh"

namespace xttcp {

// The -V flags block of print_flags() (parameter.c), one string per line, for Log::raw(),
// from "*** sender role" / "*** receiver role" down to and including the closing
// "---------------------------------------------------------" separator. A view of the spec's
// field table (linux_flags.cc, spec_fields.hh).
std::vector<std::string> linux_flags_lines(const TestSpec& spec);

// The -V line of one sender connection, as Log::debug() message, in the original's words:
// "New connection: local:38069 [socket:5] --> 127.0.0.1:25001" (TCP data, tcpstream.c),
// "Running UDP stream: local:38069 [socket:5] --> 127.0.0.1:25001" (UDP data, udpstream.c),
// "Sync connection: local:53859 [socket:4] --> 127.0.0.1:25000" (endpointsync.c).
// `remote_host` is the bare address, IPv6 too ("::1:5001", as the original prints it).
enum class SenderSocket { tcp_data, udp_data, sync };
std::string linux_connection_line(SenderSocket kind, uint16_t local_port, int64_t socket,
                                  std::string_view remote_host, uint16_t remote_port);

// Everything the original prints after "Test cycle finished.", as Log::info() messages
// (no time prefix, no trailing separator). Empty when the measured duration is 0, as there.
std::vector<std::string> linux_summary_lines(const Result& result);

// The peer's figures, given the peer's native JSON (render_native_json of the other xttcp):
// "#####  Peer (receiver) totals:  #####", then duration, bytes, throughput, CPU split,
// cycles/byte and (TCP) retransmits. One explanatory line if the JSON cannot be read.
// xttcp's own lines after the NTTTCP summary (never inside its Totals block, which automation
// parses): the data path's notes and, with --zerocopy, how the zero-copy sends went.
std::vector<std::string> xttcp_extra_lines(const Result& result);

std::vector<std::string> peer_summary_lines(const Result& peer);

// The console separator line of NTTTCP-for-Linux.
inline constexpr const char* linux_separator =
    "---------------------------------------------------------";

}  // namespace xttcp
