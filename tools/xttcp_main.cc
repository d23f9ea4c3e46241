// xttcp: the program. Chooses a dialect (--dialect or the program's name), parses it into a
// Command, then runs it; never sees argv past here. Portable: what differs per OS is in
// run_command_<os>.cc and behind the engine's own headers.
#include <cstdio>
#include <string>
#include <vector>

#include "io_backends/registry.hh"
#include "tools/cli/command.hh"
#include "tools/cli/defaults_profile.hh"
#include "tools/compare/compare_command.hh"
#include "tools/paths/paths_command.hh"
#include "tools/report/report_command.hh"
#include "tools/process_control.hh"
#include "tools/run_command.hh"
#include "tools/topology_command.hh"
#include "tools/version_text.hh"
#include "topology/topology.hh"

namespace xttcp {

int usage_error(const std::string& message) {
  std::fprintf(stderr, "xttcp: %s (see 'xttcp --help')\n", message.c_str());
  return exit_code::usage;
}

namespace {

int print_backends(const TestSpec& options) {
  std::printf("%-9s %-10s %-28s %s\n", "backend", "status", "capabilities", "notes");
  for (const auto& backend : all_backends()) {
    const Availability availability = backend->probe();
    std::printf("%-9s %-10s %-28s %s: %s\n", std::string(backend->name()).c_str(),
                availability.available ? "available" : "missing",
                describe_capabilities(backend->capabilities()).c_str(),
                std::string(backend->description()).c_str(), availability.reason.c_str());
    if (availability.available)
      for (const std::string& device : backend->devices(options))
        std::printf("%-9s %s\n", "", device.c_str());
  }
  for (const AbsentBackend& absent : absent_backends())
    std::printf("%-9s %-10s %-28s %s\n", absent.name.c_str(), "missing", "-",
                absent.reason.c_str());
  // What --backend auto (the default) takes, and why the backends before it were passed over.
  for (Protocol protocol : {Protocol::tcp, Protocol::udp}) {
    TestSpec spec;
    spec.workload.protocol = protocol;
    auto chosen = choose_backend(spec);
    if (!chosen) {
      std::printf("auto (%s): none: %s\n", to_string(protocol), chosen.error().message.c_str());
      continue;
    }
    std::string why;
    for (const auto& backend : all_backends()) {
      if (backend.get() == &chosen->backend) break;
      if (!backend->probe().available) continue;
      why.append("; not ").append(backend->name()).append(": ").append(backend->auto_refusal(spec));
    }
    std::printf("auto (%s): %s%s\n", to_string(protocol),
                std::string(chosen->backend.name()).c_str(), why.c_str());
  }
  return exit_code::success;
}

// `xttcp NAME ARGS...`: parse ARGS with the subcommand's grammar (a usage error exits 2), run it.
template <class Request>
int run_parsed(const std::vector<std::string>& args,
               Expected<Request> (*parse)(const std::vector<std::string>&),
               int (*run)(const Request&)) {
  auto request = parse(args);
  if (!request) return usage_error(request.error().message);
  return run(*request);
}

struct Subcommand {
  const char* name;
  std::string (*help)();
  int (*run)(const std::vector<std::string>& args);
};

const Subcommand subcommands[] = {
    {"compare", compare_help,
     [](const std::vector<std::string>& a) {
       return run_parsed(a, parse_compare_args, run_compare);
     }},
    {"compare-paths", paths_help,
     [](const std::vector<std::string>& a) { return run_parsed(a, parse_paths_args, run_paths); }},
    {"report", report_help,
     [](const std::vector<std::string>& a) {
       return run_parsed(a, parse_report_args, run_report);
     }},
};

}  // namespace
}  // namespace xttcp

int main(int argc, char** argv) {
  using namespace xttcp;
  std::vector<std::string> args = command_line_words(argc, argv);
  const std::string program = args.empty() ? "xttcp" : args.front();
  if (!args.empty()) args.erase(args.begin());
  auto dialect = choose_dialect(program, args);
  if (!dialect) return usage_error(dialect.error().message);
  add_implied_defaults(program, args);  // as ntttcp: the original's work (--defaults ntttcp)
  // The subcommands, each with its own grammar, the same in every dialect.
  if (!args.empty())
    for (const Subcommand& sub : subcommands)
      if (args.front() == sub.name) {
        args.erase(args.begin());
        if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
          std::fputs(sub.help().c_str(), stdout);
          return exit_code::success;
        }
        return sub.run(args);
      }
  const bool windows = *dialect == CliDialect::windows;
  const bool iperf2 = *dialect == CliDialect::iperf2;
  auto command = windows  ? parse_windows_dialect(args)
                 : iperf2 ? parse_iperf2_dialect(args)
                          : parse_linux_dialect(args);
  if (!command) return usage_error(command.error().message);
  switch (command->action) {
    case Action::help:
      std::fputs((windows  ? windows_dialect_help()
                  : iperf2 ? iperf2_dialect_help()
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
