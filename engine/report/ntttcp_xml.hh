// NTTTCP-for-Linux's XML result file (-x): root <ntttcpr> (receiver) or <ntttcps> (sender),
// the Windows-compatible element names, order and number precision of the original.
#pragma once

#include <string>

#include "engine/result.hh"

namespace xttcp {

std::string render_ntttcp_xml(const Result& result);

}  // namespace xttcp
