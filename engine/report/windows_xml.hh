// NTttcp for Windows 5.40's XML result (-xml): root <ntttcps> (sender) or <ntttcpr> (receiver)
// with computername and version="5.40", <parameters> in the original's order and units
// (run_time, warmup_time, cooldown_time and dash_n_timeout in milliseconds), one <thread> per
// thread unless -hpt, then the totals (MB = 2^20 bytes, KB = 1024). Tab indentation, no XML
// declaration, "\n" line ends (see windows_console.hh), exactly as the reference samples.
// Every figure is a number: an unavailable one is 0 (0.000), as the original writes it (see
// windows_figures.hh).
//
// The original opens its file in append mode and writes one block per run: these functions
// produce the text; whoever writes the file appends it (Output::xml_append).
#pragma once

#include <string>
#include <vector>

#include "engine/result.hh"

namespace xttcp {

// One <ntttcps>/<ntttcpr> block, ending in "\n".
std::string render_windows_xml(const Result& result);

// -sam: "<samples>\n", one block per sample, "</samples>\n", as the original writes them.
std::string render_windows_xml_samples(const std::vector<Result>& samples);

}  // namespace xttcp
