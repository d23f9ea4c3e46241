// `topology [--nic IF] [--json FILE]`: one grammar for the sub-command, read the same way by the
// Linux and the Windows dialect (an xttcp sub-command, not an NTttcp option).
#pragma once

#include <string>
#include <vector>

#include "base/status.hh"
#include "tools/cli/command.hh"

namespace xttcp {

// `args` start with "topology"; each option at most once, its value as the next word or after
// '='. Errors are one line: "'topology' takes --nic IF and --json FILE only (got '-V')",
// "--nic: needs a value", "--json: given twice".
Expected<Command> parse_topology_command(const std::vector<std::string>& args);

}  // namespace xttcp
