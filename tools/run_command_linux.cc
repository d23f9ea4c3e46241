// The Linux run: blocks SIGINT/SIGTERM for a signal thread, daemonizes for -D, opens the log,
// prints the dialect's banner, then runs the role.
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
#include "engine/report/windows_console.hh"
#include "engine/run/run.hh"
#include "engine/run/windows_dialect_support.hh"
#include "engine/stats/system_probe.hh"
#include "io_backends/backend.hh"
#include "tools/run_command.hh"
#include "xttcp_config.h"

namespace xttcp {
namespace {

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
  if (Status supported = check_windows_dialect_supported(spec); !supported) return supported;
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

  if (spec.dialect == Dialect::windows) {
    (*log)->raw(windows_banner_line());
  } else {
    (*log)->raw(fmt::format("xttcp {} (NTTTCP for Linux 1.4.3 compatible)", XTTCP_VERSION));
    (*log)->raw(linux_separator);
  }
  if (spec.verbose && spec.dialect == Dialect::linux)  // the block ends with its own separator, as the original's print_flags()
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

int run_command(TestSpec spec, const std::vector<std::string>& notes) { return run(spec, notes); }

}  // namespace xttcp
