// Runs the test a command line asked for and returns the process's exit code (0, 1, or 2 for a
// usage error found late). Per platform: run_command_linux.cc drives the engine (signals,
// daemon, the run lifecycle); run_command_windows.cc says what the Windows build cannot run yet.
#pragma once

#include <string>
#include <vector>

#include "engine/spec.hh"

namespace xttcp {

int run_command(TestSpec spec, const std::vector<std::string>& notes);

// "xttcp: <message> (see 'xttcp --help')" on stderr; returns exit_code::usage.
int usage_error(const std::string& message);

}  // namespace xttcp
