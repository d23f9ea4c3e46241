// NTTTCP-for-Linux's JSON result file (-j): {"ntttcpr"|"ntttcps": {...}}, every value a
// string, the original's keys, order and quirks (see ntttcp_json.cc).
#pragma once

#include <string>

#include "engine/result.hh"

namespace xttcp {

std::string render_ntttcp_json(const Result& result);

}  // namespace xttcp
