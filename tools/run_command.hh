// Runs the test a command line asked for and returns the process's exit code (0, 1, or 2 for a
// usage error found late). run_command.cc, the same on every OS; the process's own part
// (signals, daemon, Ctrl+C) is tools/process_control_<os>.cc.
#pragma once

#include <string>
#include <vector>

#include "engine/spec.hh"

namespace xttcp {

int run_command(TestSpec spec, const std::vector<std::string>& notes);

// "xttcp: <message> (see 'xttcp --help')" on stderr; returns exit_code::usage.
int usage_error(const std::string& message);

}  // namespace xttcp
