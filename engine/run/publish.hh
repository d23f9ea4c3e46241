// The end of every run: console summary, result files (written atomically), exit code.
#pragma once

#include "engine/result.hh"

namespace xttcp {

class Log;

// Prints the NTttcp summary (and the peer's block when present) and writes -x, -j, --json and
// --csv.
// A run asked in the NTttcp-for-Windows dialect prints its console tables instead, or with -xml
// appends its XML to that file (-sam: one block per sample, in XML within <samples>), and writes
// --json (the whole window with every sample).
// Returns false if a result file could not be written (an error line was logged).
bool publish_result(const Result& result, Log& log);

// publish_result in two steps, for a receiver that hands its result to its sender: the console
// figures of this end first (a framework may kill the receiver the moment its sender returns:
// LISA does), then, once the peer's result is in, its block, the closing separator and the files.
void print_result(const Result& result, Log& log);
// `native_json`: false when the caller writes --json itself (a -H receiver keeps every test's).
bool finish_result(const Result& result, Log& log, bool native_json = true);

}  // namespace xttcp
