// What the user asked the xttcp program to do: one action and, for a run, the validated TestSpec.
// Each command-line dialect is a grammar that produces a Command; the program never sees argv.
#pragma once

#include <string>
#include <vector>

#include "engine/exit_codes.hh"
#include "engine/spec.hh"
#include "engine/status.hh"

namespace xttcp {

enum class Action { run, help, version, backends, topology };

struct Command {
  Action action = Action::run;
  TestSpec spec;
  std::vector<std::string> notes;  // INFO lines to print before the run, e.g. a clamped value
};

// NTTTCP-for-Linux command line plus xttcp's native long options. `args` exclude argv[0].
// Errors are one line naming the option and the rule, e.g. "-P: 'abc' is not a whole number".
Expected<Command> parse_linux_dialect(const std::vector<std::string>& args);

// Same, with the number of configured CPUs given (for -m CPU checks); the overload above uses
// sysconf(_SC_NPROCESSORS_CONF).
Expected<Command> parse_linux_dialect(const std::vector<std::string>& args, unsigned cpu_count);

// Full --help text: usage, every option with its default and roles, examples, exit codes.
std::string linux_dialect_help();

}  // namespace xttcp
