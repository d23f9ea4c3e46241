// Runs one test on every OS: checks the spec against this host, prepares the process
// (tools/process_control_<os>.cc), opens the log, prints the dialect's banner, runs the role.
#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "engine/net/address.hh"
#include "engine/report/interval_stream.hh"
#include "engine/report/iperf2_console.hh"
#include "engine/report/iperf2_live.hh"
#include "engine/iperf3/client_run.hh"
#include "engine/iperf3/server_run.hh"
#include "engine/report/linux_console.hh"
#include "engine/report/log.hh"
#include "engine/report/result_file.hh"
#include "engine/report/windows_console.hh"
#include "engine/run/run.hh"
#include "engine/run/windows_dialect_support.hh"
#include "engine/stats/system_probe.hh"
#include "io_backends/registry.hh"
#include "tools/paths/auto_store.hh"
#include "tools/process_control.hh"
#include "tools/run_command.hh"
#include "tools/version_text.hh"
#include "xttcp_config.h"

namespace xttcp {
namespace {

// Every result file can be written, checked before the test rather than found out after it.
Status check_result_paths(const TestSpec& spec) {
  const bool windows = spec.dialect == Dialect::windows;
  const std::pair<const std::optional<std::string>*, const char*> files[] = {
      {&spec.output.xml_file, windows ? "-xml" : "-x"},
      {&spec.output.json_file, "-j"},
      {&spec.output.native_json_file, "--json"},
      {&spec.output.csv_file, "--csv"},
  };
  for (const auto& [path, option] : files)
    if (*path && !(*path)->empty())
      if (Status writable = check_result_path(**path, option); !writable) return writable;
  if (spec.output.json_stream) return check_stream_path(*spec.output.json_stream);
  return ok();
}

// An address this host must own (-r's to listen on, -a's to send from) that resolves to one it
// does not own is a mistake on the command line: refused before the run, in the one format of
// usage errors, as every dialect's -r once was from the engine after the banner (exit 2) and -a
// from a failed bind (exit 1). A name that does not resolve is left to the run (exit 1).
Status check_own_addresses(const TestSpec& spec, const Backend& backend) {
  if ((backend.capabilities() & cap_raw_frames) != 0) return ok();  // dpdk owns its own
  const bool iperf2 = spec.dialect == Dialect::iperf2;              // its -B is both
  std::vector<std::pair<std::string, const char*>> owned;
  if (spec.role == Role::receiver && spec.dialect != Dialect::windows)
    owned.emplace_back(spec.layout.address, iperf2 ? "-B" : "-r");
  if (spec.role == Role::sender) {
    if (!spec.layout.source_address.empty())
      owned.emplace_back(spec.layout.source_address, iperf2 ? "-B" : "-a");
    for (const std::string& source : spec.layout.source_addresses)
      owned.emplace_back(source, "--source-addresses");
  }
  for (const auto& [host, option] : owned) {
    if (host.empty() || host == "*") continue;
    auto address = resolve(host, 0, spec.layout.ipv6);
    if (address && !is_local_address(*address))
      return fail(fmt::format("{}: {} is not an address of this host", option, host));
  }
  return ok();
}

// Why auto took `backend` without a measurement: its rule, and why no measurement applied.
std::string rule_reason(const Backend& backend, const AutoAdvice& advice) {
  std::string why = fmt::format("{}: the rule for this build (docs/data-paths.md)", backend.name());
  if (!advice.why_not.empty())
    why += "; " + advice.why_not;
  else if (!advice.best.empty())
    why +=
        fmt::format("; {}, measured faster here, does not take this test's options", advice.best);
  return why;
}

// Chooses the run's backend, the one time anything does, and checks the spec against it. Also
// settles --backend auto on a name, so the results and the peer see what really ran, and says in
// `notes` when auto passed over a backend because of an option.
Expected<BackendChoice> validate_environment(TestSpec& spec, std::vector<std::string>& notes) {
  if (Status supported = check_windows_dialect_supported(spec); !supported)
    return supported.error();
  if (Status allowed = check_process_options(spec); !allowed) return allowed.error();
  const bool automatic = spec.backend == auto_backend;
  const AutoAdvice advice = automatic ? auto_advice(spec, build_identity()) : AutoAdvice{};
  auto choice = choose_backend(spec, advice.best);
  if (!choice) return choice.error();
  if (!choice->auto_note.empty()) notes.push_back(choice->auto_note);
  if (automatic) {
    spec.backend_why = choice->measured ? advice.why : rule_reason(choice->backend, advice);
    // The original's console stays the original's (--defaults ntttcp); the result says it.
    if (spec.defaults != Defaults::ntttcp) notes.push_back("--backend auto: " + spec.backend_why);
  }
  if (Status owned = check_own_addresses(spec, choice->backend); !owned) return owned.error();
  spec.backend = std::string(choice->backend.name());
  if (!spec.output.show_nic_packets.empty())
    if (Status exists = check_interface_exists(spec.output.show_nic_packets); !exists)
      return exists.error();
  if (Status writable = check_result_paths(spec); !writable) return writable.error();
  return choice;
}

int run(TestSpec spec, std::vector<std::string> notes) {
  auto choice = validate_environment(spec, notes);
  if (!choice) return usage_error(choice.error().message);

  if (Status prepared = prepare_process(spec); !prepared) {
    std::fprintf(stderr, "xttcp: %s\n", prepared.error().message.c_str());
    return exit_code::run_failed;
  }

  Log::Options options;
  options.quiet = spec.output.quiet;
  options.verbose = spec.output.verbose;
  options.log_file = spec.output.log_file;
  options.info_to_err = spec.dialect == Dialect::iperf2 || spec.dialect == Dialect::iperf3;
  options.info_when_verbose = spec.dialect == Dialect::iperf3;
  if (spec.output.json_stream == "-") options.out = stderr;  // the stream alone on stdout
  auto log = Log::open(options);
  if (!log) return usage_error(log.error().message);

  if (spec.dialect == Dialect::windows) {
    (*log)->raw(windows_banner_line());
  } else if (spec.dialect == Dialect::iperf2) {
    for (const std::string& line : iperf2_banner_lines(spec)) (*log)->raw(line);
  } else if (spec.dialect == Dialect::iperf3) {
    // iperf3's server prints its own banner before each test (engine/iperf3/server_run.cc).
  } else {
    (*log)->raw(fmt::format("xttcp {} (NTTTCP for Linux 1.4.3 compatible)", XTTCP_VERSION));
    (*log)->raw(linux_separator);
  }
  if (spec.output.verbose &&
      spec.dialect ==
          Dialect::linux)  // the block ends with its own separator, as the original's print_flags()
    for (const std::string& line : linux_flags_lines(spec)) (*log)->raw(line);
  for (const std::string& note : notes) (*log)->info(note);
  // -D: what the original prints before it detaches, all of it (scripts wait for these lines).
  if (spec.control.daemonize) {
    (*log)->info("main: run this tool in the background");
    if (Status detached = detach_process(); !detached) {
      (*log)->error(detached.error().message);
      return exit_code::run_failed;
    }
  }

  // After -D's fork: the signal thread must be the daemon's.
  // The signal thread is detached and a signal may come after this function returned (while the
  // process exits): what it touches must outlive it, so both are never freed. On the stack, a
  // late Ctrl+C read a dead flag as "already interrupted" and left with exit 1.
  std::atomic<bool>& interrupted = *new std::atomic<bool>(false);
  PhaseClock& clock = *new PhaseClock;
  watch_interrupts(interrupted, clock);

  RunEnv env{**log, clock, *choice, &interrupted};
  std::unique_ptr<IntervalStream> stream;  // --json-stream: opened after -D (a FIFO's reader)
  if (spec.output.json_stream) {
    auto opened = IntervalStream::open(*spec.output.json_stream);
    if (!opened) {
      (*log)->error(opened.error().message);
      return exit_code::run_failed;
    }
    stream = std::move(*opened);
    env.intervals = stream.get();
  }
  Iperf2LiveReport live_report(spec, **log);
  if (Iperf2LiveReport::prints(spec)) env.live_report = &live_report;
  int code = exit_code::run_failed;
  switch (spec.role) {
    case Role::sender:
      if (spec.dialect == Dialect::iperf3) {
        code = iperf3::run_client(spec, env);
        break;
      }
      code = spec.repeat.count > 1 ? run_repeated_sender(spec, env) : run_sender(spec, env);
      break;
    case Role::receiver:
      if (spec.dialect == Dialect::iperf3) {
        code = iperf3::run_server(spec, env);
        break;
      }
      // iperf 2's server serves test after test until Ctrl+C; each test listens anew, on a
      // clock of its own (the last test finished the clock: a test on it would end at once).
      for (;;) {
        code = run_receiver(spec, env);
        if (spec.dialect != Dialect::iperf2 || code != exit_code::success || interrupted.load())
          break;
        clock.reset();
      }
      break;
    case Role::local: code = run_local(spec, env); break;
  }
  if (std::optional<std::string> lost = (*log)->log_file_error()) {
    std::fprintf(stderr, "xttcp: %s\n", lost->c_str());
    if (code == exit_code::success) code = exit_code::run_failed;
  }
  return code;
}

}  // namespace

int run_command(TestSpec spec, const std::vector<std::string>& notes) { return run(spec, notes); }

int command_error(const std::string& message, int code) {
  std::fprintf(stderr, "xttcp: %s\n", message.c_str());
  return code;
}

}  // namespace xttcp
