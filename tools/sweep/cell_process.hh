// What `xttcp sweep` needs of the OS: run this program as one cell's sender, bounded in time
// and stopped by PID, gone with the sweep, and pass the user's Ctrl+C on to it. Linux: fork and
// exec of /proc/self/exe in a process group of its own, with a parent-death signal
// (cell_process_linux.cc); Windows: not yet, and every call says so (cell_process_windows.cc).
#pragma once

#include <string>
#include <vector>

#include "base/status.hh"

namespace xttcp {

// Whether this OS runs a sweep's cells (Windows: no, with the reason).
Status can_run_cells();

// From now on, SIGINT, SIGTERM and SIGHUP to this process set the flag that cell_interrupted()
// reads and are passed on to the running cell (as SIGINT), once.
void watch_cell_interrupts();
bool cell_interrupted();

struct CellCommand {
  std::vector<std::string> args;   // argv[1..] of the xttcp sender
  std::string out_path, err_path;  // its stdout and stderr
  double timeout_s = 60;           // past it, it is killed
};

struct CellExit {
  int code = -1;           // its exit code; -1: killed (by the timeout or a signal)
  bool timed_out = false;  // killed by the timeout
};

Expected<CellExit> run_cell(const CellCommand& command);

}  // namespace xttcp
