// Runs the test a command line asked for and returns the process's exit code (0, 1, or 2 for a
// usage error found late). run_command.cc, the same on every OS; the process's own part
// (signals, daemon, Ctrl+C) is tools/process_control_<os>.cc.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/spec.hh"

namespace xttcp {

int run_command(TestSpec spec, const std::vector<std::string>& notes);

// The one format of every command-line error found before a run starts, in every dialect and
// command: "xttcp: <message> (see '<help>')", one line on stderr; returns exit_code::usage.
// Errors during a run are the log's own lines ("HH:MM:SS ERR : ...").
int usage_error(const std::string& message, std::string_view help = "xttcp --help");

// A command's own failure: "xttcp: <message>", one line on stderr; returns `code`.
int command_error(const std::string& message, int code);

}  // namespace xttcp
