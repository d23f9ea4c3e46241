// xttcp: the program. Chooses a dialect (--dialect or the program's name), parses it into a
// Command, then runs it; never sees argv past here. Portable: what differs per OS is in
// run_command_<os>.cc and behind the engine's own headers.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "io_backends/registry.hh"
#include "tools/backends_command.hh"
#include "tools/cli/command.hh"
#include "tools/cli/defaults_profile.hh"
#include "tools/cli/subcommands.hh"
#include "tools/compare/compare_command.hh"
#include "tools/paths/calibrate_command.hh"
#include "tools/sweep/sweep_command.hh"
#include "tools/paths/paths_command.hh"
#include "tools/report/report_command.hh"
#include "tools/process_control.hh"
#include "tools/run_command.hh"
#include "tools/topology_command.hh"
#include "tools/version_text.hh"
#include "topology/topology.hh"

namespace xttcp {

int usage_error(const std::string& message, std::string_view help) {
  std::fprintf(stderr, "xttcp: %s (see '%.*s')\n", message.c_str(), static_cast<int>(help.size()),
               help.data());
  return exit_code::usage;
}

namespace {

// `xttcp NAME ARGS...`: parse ARGS with the subcommand's grammar (a usage error exits 2 and
// points at the command's own help), run it.
template <class Request>
int run_parsed(const char* name, const std::vector<std::string>& args,
               Expected<Request> (*parse)(const std::vector<std::string>&),
               int (*run)(const Request&)) {
  auto request = parse(args);
  if (!request) return usage_error(request.error().message, fmt::format("xttcp {} --help", name));
  return run(*request);
}

// The commands with a grammar of their own (tools/cli/subcommands.hh names them all; topology
// and backends are read by each dialect's grammar).
struct CommandRunner {
  const char* name;
  std::string (*help)();
  int (*run)(const std::vector<std::string>& args);
};

const CommandRunner runners[] = {
    {"compare", compare_help,
     [](const std::vector<std::string>& a) {
       return run_parsed("compare", a, parse_compare_args, run_compare);
     }},
    {"compare-paths", paths_help,
     [](const std::vector<std::string>& a) {
       return run_parsed("compare-paths", a, parse_paths_args, run_paths);
     }},
    {"calibrate", calibrate_help,
     [](const std::vector<std::string>& a) {
       return run_parsed("calibrate", a, parse_calibrate_args, run_calibrate);
     }},
    {"report", report_help,
     [](const std::vector<std::string>& a) {
       return run_parsed("report", a, parse_report_args, run_report);
     }},
    {"sweep", sweep_help,
     [](const std::vector<std::string>& a) {
       return run_parsed("sweep", a, parse_sweep_args, run_sweep);
     }},
};

// `xttcp NAME ...`: runs a command that has its own grammar, prints any command's --help, or
// refuses a first word that is no command. nullopt: the dialect's grammar reads the line
// (topology, backends).
std::optional<int> run_subcommand(std::vector<std::string>& args) {
  const SubcommandDoc* doc = find_subcommand(args.front());
  if (doc == nullptr) return usage_error(unknown_command_message(args.front()));
  const CommandRunner* runner = nullptr;
  for (const CommandRunner& candidate : runners)
    if (doc->name == candidate.name) runner = &candidate;
  if (args.size() == 2 && (args[1] == "--help" || args[1] == "-h")) {
    std::fputs(runner != nullptr ? runner->help().c_str() : std::string(doc->help).c_str(), stdout);
    return exit_code::success;
  }
  if (runner == nullptr) return std::nullopt;
  args.erase(args.begin());
  return runner->run(args);
}

}  // namespace
}  // namespace xttcp

int main(int argc, char** argv) {
  using namespace xttcp;
  std::vector<std::string> args = command_line_words(argc, argv);
  const std::string program = args.empty() ? "xttcp" : args.front();
  if (!args.empty()) args.erase(args.begin());
  auto dialect = choose_dialect(program, args);
  if (!dialect) return usage_error(dialect.error().message);
  // A first word that is no option names a command, the same in every dialect; any other is
  // refused here, before a grammar could take it for a stray word and start a receiver.
  if (starts_with_command_word(args))
    if (std::optional<int> code = run_subcommand(args)) return *code;
  add_implied_defaults(program, args);  // as ntttcp: the original's work (--defaults ntttcp)
  const bool windows = *dialect == CliDialect::windows;
  const bool iperf2 = *dialect == CliDialect::iperf2;
  const bool iperf3 = *dialect == CliDialect::iperf3;
  auto command = windows  ? parse_windows_dialect(args)
                 : iperf2 ? parse_iperf2_dialect(args)
                 : iperf3 ? parse_iperf3_dialect(args)
                          : parse_linux_dialect(args);
  if (!command) return usage_error(command.error().message);
  switch (command->action) {
    case Action::help:
      std::fputs((windows  ? windows_dialect_help()
                  : iperf2 ? iperf2_dialect_help()
                  : iperf3 ? iperf3_dialect_help()
                           : linux_dialect_help())
                     .c_str(),
                 stdout);
      return exit_code::success;
    case Action::version: std::fputs(version_text().c_str(), stdout); return exit_code::success;
    case Action::backends: return print_backends(command->spec);
    case Action::topology: return run_topology_command(command->topology);
    case Action::run: break;
  }
  return run_command(command->spec, command->notes);
}
