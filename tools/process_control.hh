// What the xttcp process itself does around a run, per platform (process_control_linux.cc:
// signals, daemon(3); process_control_windows.cc: the console's Ctrl+C handler).
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "base/status.hh"
#include "engine/run/phase_clock.hh"
#include "engine/spec.hh"

namespace xttcp {

// The command line as UTF-8 words, the program's name first. Linux: argv as is. Windows: the
// UTF-16 command line (GetCommandLineW, CommandLineToArgvW) converted to UTF-8, so that a
// character outside the ANSI code page (an en dash pasted from a web page) arrives as itself,
// not as '?'; argv if that fails.
std::vector<std::string> command_line_words(int argc, char** argv);

// Options this OS cannot honour, refused before anything starts (usage error, one line):
// "-D: running as a daemon is Linux only".
Status check_process_options(const TestSpec& spec);

// Before the log opens: the interrupt signals are taken by one thread from now on (once
// watch_interrupts runs), a broken connection never kills the process, and with -D the result
// paths are made absolute (the daemon's working directory is '/').
// Error: the one line to print; the run then fails.
Status prepare_process(TestSpec& spec);

// -D, once the banner, the -V settings and the notes are printed (scripts wait for them):
// detaches the process (daemon(3): stdio to /dev/null). Before any thread starts: threads do
// not survive the fork. Error: the one line to print; the run then fails.
Status detach_process();

// Ctrl+C / SIGTERM (Ctrl+Break, console close on Windows): the first sets `interrupted` and
// cancels the clock (results are still printed), the second ends the process at once. Both
// must live until the process ends (the watching thread is detached).
void watch_interrupts(std::atomic<bool>& interrupted, PhaseClock& clock);

}  // namespace xttcp
