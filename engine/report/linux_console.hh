// NTTTCP-for-Linux's console text: the -V flags block and the results after "Test cycle
// finished." Pure functions over TestSpec and Result; the caller prints them through Log.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/result.hh"
#include "engine/spec.hh"

namespace xttcp {

// The -V flags block of print_flags() (parameter.c), one string per line, for Log::raw(),
// from "*** sender role" / "*** receiver role" down to and including the closing
// "---------------------------------------------------------" separator.
std::vector<std::string> linux_flags_lines(const TestSpec& spec);

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
