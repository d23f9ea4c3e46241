// This kernel's io_uring features, probed once per test binary with no XTTCP_URING_DISABLE
// simulation in force.
#pragma once

#include <stdlib.h>

#include "io_backends/uring/probe.hh"

namespace xttcp::test {

inline const UringCapabilities& machine() {
  static const UringCapabilities caps = [] {
    unsetenv("XTTCP_URING_DISABLE");
    return probe_uring();
  }();
  return caps;
}

}  // namespace xttcp::test
