// Linux: SIGINT/SIGTERM are blocked in every thread and taken by one thread with sigwait();
// SIGPIPE is ignored; -D is daemon(3).
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>

#include "base/exit_codes.hh"
#include "tools/process_control.hh"

namespace xttcp {
namespace {

sigset_t interrupt_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

// -D: relative result paths would land in '/' after daemon(); make them absolute first.
void make_paths_absolute(TestSpec& spec) {
  for (std::optional<std::string>* path :
       {&spec.output.log_file, &spec.output.xml_file, &spec.output.json_file,
        &spec.output.native_json_file, &spec.output.csv_file, &spec.output.json_stream}) {
    if (*path && !path->value().empty() && **path != "-")
      **path = std::filesystem::absolute(**path).string();
  }
}

}  // namespace

std::vector<std::string> command_line_words(int argc, char** argv) {
  return std::vector<std::string>(argv, argv + argc);
}

Status check_process_options(const TestSpec&) { return ok(); }

Status prepare_process(TestSpec& spec) {
  // Block the signals in every thread; the signal thread takes them with sigwait().
  const sigset_t set = interrupt_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);
  if (spec.control.daemonize) make_paths_absolute(spec);
  return ok();
}

Status detach_process() {
  std::fflush(nullptr);  // the parent leaves with _exit(): what it buffered would be lost
  if (daemon(0, 0) != 0) return fail(std::string("-D: daemon: ") + std::strerror(errno));
  return ok();
}

void watch_interrupts(std::atomic<bool>& interrupted, PhaseClock& clock) {
  std::thread([&interrupted, &clock] {
    const sigset_t set = interrupt_signals();
    for (;;) {
      int signal_number = 0;
      if (sigwait(&set, &signal_number) != 0) continue;
      if (interrupted.exchange(true)) {  // a second Ctrl+C: the user wants out now
        std::fprintf(stderr, "xttcp: interrupted again (signal %d): exiting at once\n",
                     signal_number);
        std::fflush(stderr);
        _exit(exit_code::run_failed);
      }
      clock.cancel(StopCause::interrupted, "interrupted by signal");
    }
  }).detach();
}

}  // namespace xttcp
