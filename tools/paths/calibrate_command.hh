// `xttcp calibrate` (docs/data-paths.md, "How auto chooses"): measures epoll and io_uring on
// loopback for the workload shapes --backend auto looks up, and records the faster per shape
// for this host (tools/paths/auto_record.hh). Exit codes: 0 measured or shown, 1 a run failed
// or the record could not be written, 2 usage.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.hh"

namespace xttcp {

struct CalibrateRequest {
  uint32_t seconds = 1;    // -t of each run
  uint32_t repeat = 2;     // --repeat
  bool show_only = false;  // --show
};

// The words after "calibrate". Errors are one line naming the option and the rule.
Expected<CalibrateRequest> parse_calibrate_args(const std::vector<std::string>& args);
std::string calibrate_help();
int run_calibrate(const CalibrateRequest& request);

}  // namespace xttcp
