#include "tools/sweep/cell_process.hh"

namespace xttcp {

// A sweep spawns each cell as a process of this program and passes Ctrl+C on to it; on
// Windows neither is built yet (compare-paths has the same limit).
Status can_run_cells() {
  return fail(
      "sweep: not on Windows yet: run the sweep from a Linux sender against the Windows "
      "receiver (xttcp -r -H there)");
}

void watch_cell_interrupts() {}
bool cell_interrupted() { return false; }

Expected<CellExit> run_cell(const CellCommand&) { return can_run_cells().error(); }

}  // namespace xttcp
