// What the engine runs of an NTttcp-for-Windows command line today. The grammar
// (tools/cli/windows_dialect.cc) accepts the original's whole option set; a run that asks for
// something the engine does not implement yet is refused before anything starts, naming the
// option, rather than run differently from what was asked.
#pragma once

#include "engine/spec.hh"
#include "engine/status.hh"

namespace xttcp {

// ok() for a spec the engine runs as asked (a Linux-dialect spec always passes). Else one line,
// e.g. "-sam: samples is not implemented yet", for the first such option.
// Runs today: TCP, timed (-t), with the token handshake or -ns, -sp, -m (one host), -p, -l,
// -ndl, -nic, -wu/-cd, -v, -6, -hpt, -xml, -nsb, -to, and xttcp's long options.
Status check_windows_dialect_supported(const TestSpec& spec);

}  // namespace xttcp
