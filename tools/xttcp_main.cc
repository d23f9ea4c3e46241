// xttcp: the program. Parses a dialect into a Command, then runs it; never sees argv past here.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "engine/report/linux_console.hh"
#include "engine/report/log.hh"
#include "engine/run/run.hh"
#include "engine/stats/system_probe.hh"
#include "io_backends/backend.hh"
#include "tools/cli/command.hh"
#include "topology/topology.hh"
#include "xttcp_config.h"

namespace xttcp {
namespace {


int usage_error(const std::string& message) {
  std::fprintf(stderr, "xttcp: %s (see 'xttcp --help')\n", message.c_str());
  return exit_code::usage;
}

int print_backends() {
  std::printf("%-9s %-10s %-28s %s\n", "backend", "status", "capabilities", "notes");
  for (const auto& backend : all_backends()) {
    const Availability availability = backend->probe();
    std::printf("%-9s %-10s %-28s %s: %s\n", std::string(backend->name()).c_str(),
                availability.available ? "available" : "missing",
                describe_capabilities(backend->capabilities()).c_str(),
                std::string(backend->description()).c_str(), availability.reason.c_str());
  }
  if (!XTTCP_HAVE_LIBURING)
    std::printf("%-9s %-10s %-28s %s\n", "io_uring", "missing", "-", "not compiled in (liburing not found at build time)");
  if (!XTTCP_HAVE_DPDK)
    std::printf("%-9s %-10s %-28s %s\n", "dpdk", "missing", "-",
                "not compiled in (libdpdk not found at build time: scripts/install-deps.sh --dpdk)");
  // What --backend auto (the default) takes, and why the backends before it were passed over.
  for (Protocol protocol : {Protocol::tcp, Protocol::udp}) {
    TestSpec spec;
    spec.protocol = protocol;
    auto chosen = select_backend(spec);
    if (!chosen) {
      std::printf("auto (%s): none: %s\n", to_string(protocol), chosen.error().message.c_str());
      continue;
    }
    std::string why;
    for (const auto& backend : all_backends()) {
      if (backend.get() == *chosen) break;
      if (!backend->probe().available) continue;
      why.append("; not ").append(backend->name()).append(": ").append(
          backend->auto_refusal(spec));
    }
    std::printf("auto (%s): %s%s\n", to_string(protocol), std::string((*chosen)->name()).c_str(),
                why.c_str());
  }
  return exit_code::success;
}

// Ctrl+C / SIGTERM: the first asks the run to stop (results are still printed), the second ends
// the process at once.
void start_signal_thread(std::atomic<bool>& interrupted, PhaseClock& clock) {
  std::thread([&interrupted, &clock] {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    for (;;) {
      int signal_number = 0;
      if (sigwait(&set, &signal_number) != 0) continue;
      if (interrupted.exchange(true)) _exit(exit_code::run_failed);
      clock.cancel("interrupted by signal");
    }
  }).detach();
}

// -D: relative result paths would land in '/' after daemon(); make them absolute first.
void make_paths_absolute(TestSpec& spec) {
  for (std::optional<std::string>* path :
       {&spec.log_file, &spec.xml_file, &spec.json_file, &spec.native_json_file}) {
    if (*path && !path->value().empty())
      **path = std::filesystem::absolute(**path).string();
  }
}

// Also settles --backend auto on a name, so the results and the peer see what really ran.
Status validate_environment(TestSpec& spec) {
  auto backend = select_backend(spec);
  if (!backend) return backend.error();
  spec.backend = std::string((*backend)->name());
  if (!spec.show_nic_packets.empty())
    if (Status exists = check_interface_exists(spec.show_nic_packets); !exists) return exists;
  return ok();
}

int run(TestSpec spec, const std::vector<std::string>& notes) {
  if (Status valid = validate_environment(spec); !valid) return usage_error(valid.error().message);

  // Block the signals in every thread; the signal thread takes them with sigwait().
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);

  if (spec.daemonize) {
    make_paths_absolute(spec);
    if (daemon(0, 0) != 0) {
      std::perror("xttcp: -D: daemon");
      return exit_code::run_failed;
    }
  }

  Log::Options options;
  options.quiet = spec.quiet;
  options.verbose = spec.verbose;
  options.log_file = spec.log_file;
  auto log = Log::open(options);
  if (!log) return usage_error(log.error().message);

  std::atomic<bool> interrupted{false};
  PhaseClock clock;
  start_signal_thread(interrupted, clock);

  (*log)->raw(fmt::format("xttcp {} (NTTTCP for Linux 1.4.3 compatible)", XTTCP_VERSION));
  (*log)->raw(linux_separator);
  if (spec.verbose)  // the block ends with its own separator, as the original's print_flags()
    for (const std::string& line : linux_flags_lines(spec)) (*log)->raw(line);
  for (const std::string& note : notes) (*log)->info(note);

  RunEnv env{**log, clock, &interrupted};
  switch (spec.role) {
    case Role::sender: return run_sender(spec, env);
    case Role::receiver: return run_receiver(spec, env);
    case Role::local: return run_local(spec, env);
  }
  return exit_code::run_failed;
}

}  // namespace
}  // namespace xttcp

int main(int argc, char** argv) {
  using namespace xttcp;
  std::vector<std::string> args(argv + 1, argv + argc);
  auto command = parse_linux_dialect(args);
  if (!command) return usage_error(command.error().message);
  switch (command->action) {
    case Action::help:
      std::fputs(linux_dialect_help().c_str(), stdout);
      return exit_code::success;
    case Action::version:
      std::printf("xttcp %s\n", XTTCP_VERSION);
      return exit_code::success;
    case Action::backends:
      return print_backends();
    case Action::topology:
      std::fputs(describe_topology(discover_topology()).c_str(), stdout);
      return exit_code::success;
    case Action::run:
      break;
  }
  return run(command->spec, command->notes);
}
