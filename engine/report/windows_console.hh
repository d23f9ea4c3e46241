// NTttcp for Windows 5.40's console text (text mode of PrintOutput in ntttcp.c): the per-thread
// table (unless -hpt), Totals, latency (-lm), buffers/s and cycles/byte, DPCs and interrupts,
// packets/retransmits/errors/CPU, and the NOTE when the CPU figure is 0 or below. Widths,
// precision and blank lines are the original's (checked against the reference samples).
// Unavailable figures print "NA" in their column (see windows_figures.hh).
//
// Line ends are "\n": the original writes "\n" too and the Windows C runtime's text mode turns
// it into "\r\n", which is what a Windows build of xttcp gets from its stdio as well.
#pragma once

#include <string>

#include "engine/result.hh"

namespace xttcp {

// The line the original prints first, "Copyright Version 5.40", followed by xttcp's version:
// "Copyright Version 5.40 (xttcp 0.1.0)".
std::string windows_banner_line();

// Printed when every connection is up and the data starts (after the token exchange).
inline constexpr const char* windows_progress_line = "Network activity progressing...";

// Everything PrintOutput prints in text mode for one result block (one per -sam sample), from
// the two blank lines before the thread table to the NOTE, each line ending in "\n".
std::string render_windows_console(const Result& result);

// The NOTE block alone ("\n\nNOTE::Avg CPU% drops below 0% if test duration is too short\n\n")
// when the CPU figure is 0 or below, else "". The original prints it on the console in XML mode
// too, where the tables go to the file.
std::string windows_cpu_note(const Result& result);

}  // namespace xttcp
