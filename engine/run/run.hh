// Running one test end to end, per role. Each returns the process exit code:
// 0 success, 1 the run failed (an error line was logged), 2 a usage error found late.
#pragma once

#include <atomic>
#include <functional>
#include <optional>

#include "base/exit_codes.hh"
#include "engine/backend/backend.hh"
#include "engine/result.hh"
#include "engine/run/phase_clock.hh"
#include "engine/spec.hh"

namespace xttcp {

class IntervalSink;
class IntervalStream;
class Log;

struct RunEnv {
  Log& log;
  PhaseClock& clock;  // cut short by Ctrl+C / SIGTERM and by the peer (early exit, lost)
  // The backend the tools layer chose and checked against the spec, once (choose_backend in
  // io_backends/registry.hh), with why --backend auto passed over others. Both roles of --local
  // run on it.
  const BackendChoice& choice;
  // Set (before the clock is cancelled) when the user asked us to stop: Ctrl+C / SIGTERM.
  const std::atomic<bool>* interrupted = nullptr;
  bool print_results = true;  // console summary and result files
  // Receiver: called once it listens (data ports and sync port), before it waits for a sender.
  std::function<void()> on_listening;
  // Filled with the last test's result when the run produced one.
  std::optional<Result>* result_out = nullptr;
  // --json-stream: every measured interval as it ends, and each test's end (nullptr: none).
  IntervalStream* intervals = nullptr;
  // The dialect's interval lines as each interval ends (the iperf2 dialect's -i; nullptr: none).
  IntervalSink* live_report = nullptr;
};

inline bool user_interrupted(const RunEnv& env) {
  return env.interrupted != nullptr && env.interrupted->load();
}

int run_sender(const TestSpec& spec, RunEnv& env);
// --repeat N (spec.repeat.count > 1): run_sender N times, --repeat-pause apart; --json gets the
// set of runs (engine/report/native_runs.hh). Stops at the first test that fails.
int run_repeated_sender(const TestSpec& spec, RunEnv& env);
int run_receiver(const TestSpec& spec, RunEnv& env);
// Receiver and sender in one process over loopback, with the full lifecycle and sync protocol.
int run_local(const TestSpec& spec, RunEnv& env);

}  // namespace xttcp
