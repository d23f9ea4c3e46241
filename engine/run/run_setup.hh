// What every role needs before it starts: its backend (checked against the spec) and its plan
// on this host's CPUs. Any failure here is a usage error.
#pragma once

#include "engine/plan.hh"
#include "io_backends/backend.hh"

namespace xttcp {

struct RunSetup {
  Backend* backend = nullptr;
  Plan plan;
};

Expected<RunSetup> prepare_run(const TestSpec& spec);

}  // namespace xttcp
