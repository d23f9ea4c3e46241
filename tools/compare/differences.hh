// What differs between two runs besides their figures: the workload (the effective spec: a
// different one makes the comparison meaningless) and the environment (host, peer's host, tool
// version: a new driver version is what a regression check is for; a different MTU or CPU
// makes the runs unlike, and is a warning).
#pragma once

#include <string>
#include <vector>

#include "engine/result.hh"

namespace xttcp {

struct Difference {
  std::string key;  // dotted JSON path, e.g. "spec.send_buffer", "host.nic.driver_version"
  std::string base, changed;  // the values as JSON text
  bool warning = false;       // environment only: the runs are not like for like
};

// Spec keys that name what was measured (not where results went, nor how long to wait), the
// role and the backend that ran.
std::vector<Difference> workload_differences(const Result& base, const Result& changed);
// host.* (and peer.host.*), tool.version; values that move on their own (current CPU MHz,
// the `uname -a` line that repeats the kernel) are left out.
std::vector<Difference> environment_differences(const Result& base, const Result& changed);

}  // namespace xttcp
