// What the engine runs of an NTttcp-for-Windows command line. The grammar
// (tools/cli/windows_dialect.cc) accepts the original's whole option set; a run that asks for
// something xttcp does not do is refused before anything starts, naming the option and what to
// use instead, rather than run differently from what was asked. What depends on the data path
// (-a, -rb/-sb, -d, -wa, -thr, -uc, -lm, -n) is held against the chosen backend's capabilities
// (engine/backend/option_check.hh).
#pragma once

#include "base/status.hh"
#include "engine/spec.hh"

namespace xttcp {

// ok() for a spec the engine runs as asked (a Linux-dialect spec always passes). Else one line
// for the first such option, e.g. "-lm: xttcp does not time each send/recv call; use ...".
Status check_windows_dialect_supported(const TestSpec& spec);

}  // namespace xttcp
