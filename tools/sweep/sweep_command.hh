// `xttcp sweep` (docs/regression.md, "Sweeps"): runs the plan of sweep_plan.hh against one
// receiver. Exit codes: 0 every cell measured, 1 a cell failed or the user stopped it (the file
// holds every cell that finished), 2 usage.
#pragma once

#include "tools/sweep/sweep_plan.hh"

namespace xttcp {

int run_sweep(const SweepRequest& request);

}  // namespace xttcp
