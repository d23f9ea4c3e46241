// --repeat N: the sender's test N times in a row, each a full synchronised test against the
// same receiver (which stays with -H), then every run and their statistics in --json. The
// console shows every test's own block as a single test prints it, then the set's summary
// (engine/report/repeat_console.hh), last.
#include <fmt/format.h>

#include "engine/report/linux_console.hh"
#include "engine/report/log.hh"
#include "engine/report/native_runs.hh"
#include "engine/report/repeat_console.hh"
#include "engine/report/result_file.hh"
#include "engine/run/run.hh"

namespace xttcp {

int run_repeated_sender(const TestSpec& spec, RunEnv& env) {
  TestSpec one = spec;
  one.output.native_json_file
      .reset();  // each run's console and -x/-j as usual; --json gets the set
  RunSet set;
  set.pause_s = spec.repeat.pause_s;
  std::optional<Result>* caller_out = env.result_out;
  int code = exit_code::success;
  for (uint32_t i = 0; i < spec.repeat.count && code == exit_code::success; ++i) {
    if (i > 0) {
      const auto resume = SteadyClock::now() + std::chrono::duration_cast<SteadyClock::duration>(
                                                   std::chrono::duration<double>(set.pause_s));
      env.clock.reset();                 // the last test finished its clock
      if (user_interrupted(env)) break;  // set before a Ctrl+C cancels: none is lost by reset
      if (set.pause_s > 0 && !env.clock.wait_until(resume)) break;  // Ctrl+C in the pause
    }
    env.log.info(fmt::format("repeat: test {} of {}", i + 1, spec.repeat.count));
    std::optional<Result> result;
    env.result_out = &result;
    code = run_sender(one, env);
    if (result) set.runs.push_back(std::move(*result));
    if (code != exit_code::success && i > 0)
      env.log.error(
          fmt::format("repeat: test {} of {} failed after {} that ran (the receiver "
                      "stays for test after test only with -H)",
                      i + 1, spec.repeat.count, set.runs.size()));
  }
  env.result_out = caller_out;
  if (env.print_results && !set.runs.empty()) {
    for (const std::string& line : repeat_summary_lines(set.runs, spec.repeat.count))
      env.log.info(line);
    env.log.raw(linux_separator);
  }
  // After the summary, so the last line says why the set is short.
  if (code == exit_code::success && set.runs.size() < spec.repeat.count) {
    env.log.error(fmt::format("repeat: interrupted after {} of {} tests", set.runs.size(),
                              spec.repeat.count));
    code = exit_code::run_failed;
  }
  if (caller_out != nullptr && !set.runs.empty()) *caller_out = set.runs.back();
  // What ran is written even when a later test failed: the file says how many ran.
  if (spec.output.native_json_file && !set.runs.empty()) {
    if (Status written =
            write_file_atomically(*spec.output.native_json_file, render_native_runs(set));
        !written) {
      env.log.error(written.error().message);
      code = exit_code::run_failed;
    }
  }
  return code;
}

}  // namespace xttcp
