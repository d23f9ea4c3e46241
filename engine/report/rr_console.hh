// --rr (docs/rr.md): the console's short request/response block, the same lines in both
// dialects' consoles: transactions and their rate, the round-trip percentiles (requester), the
// CPU per transaction, and per flow when there are several.
#pragma once

#include <string>
#include <vector>

#include "engine/result.hh"

namespace xttcp {

// Empty without r.rr.
std::vector<std::string> rr_console_lines(const Result& r);

}  // namespace xttcp
