// The `topology` sub-command's grammar (see topology_request.hh).
#include "tools/cli/topology_request.hh"

#include <fmt/format.h>

namespace xttcp {

Expected<Command> parse_topology_command(const std::vector<std::string>& args) {
  Command command{Action::topology, {}, {}};
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::string name = args[i];
    std::string value;
    bool has_value = false;
    if (std::size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
      has_value = true;
    }
    if (name != "--nic" && name != "--json")
      return fail(
          fmt::format("'topology' takes --nic IF and --json FILE only (got '{}')", args[i]));
    if (!has_value) {
      if (i + 1 >= args.size()) return fail(fmt::format("{}: needs a value", name));
      value = args[++i];
    }
    std::string& field = name == "--nic" ? command.topology.nic : command.topology.json_file;
    if (value.empty()) return fail(fmt::format("{}: needs a non-empty value", name));
    if (!field.empty()) return fail(fmt::format("{}: given twice", name));
    field = value;
  }
  return command;
}

}  // namespace xttcp
