// What the xttcp process itself does around a run, per platform (process_control_linux.cc:
// signals, daemon(3); process_control_windows.cc: the console's Ctrl+C handler).
#pragma once

#include <atomic>

#include "base/status.hh"
#include "engine/run/phase_clock.hh"
#include "engine/spec.hh"

namespace xttcp {

// Options this OS cannot honour, refused before anything starts (usage error, one line):
// "-D: running as a daemon is Linux only".
Status check_process_options(const TestSpec& spec);

// Before the log opens: the interrupt signals are taken by one thread from now on, a broken
// connection never kills the process, and -D detaches it (result paths made absolute first).
// Error: the one line to print; the run then fails.
Status prepare_process(TestSpec& spec);

// Ctrl+C / SIGTERM (Ctrl+Break, console close on Windows): the first sets `interrupted` and
// cancels the clock (results are still printed), the second ends the process at once.
void watch_interrupts(std::atomic<bool>& interrupted, PhaseClock& clock);

}  // namespace xttcp
