// --csv FILE: the measured window's intervals as comma-separated values, one row per interval,
// for a spreadsheet or a plotting script (docs/native-json.md, "Intervals as CSV"). Written with
// the other result files, whole or not at all.
#pragma once

#include <string>

#include "engine/result.hh"

namespace xttcp {

// "start_s,seconds,bytes,throughput_bps" (UDP: ",datagrams,lost,reordered,jitter_ms"), then a
// row per interval; numbers as C locale decimals.
std::string render_interval_csv(const Result& result);

}  // namespace xttcp
