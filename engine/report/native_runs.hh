// A set of repeated runs of one test (--repeat N): every run's native result and, per metric,
// the runs' summary statistics (schema "xttcp-runs", docs/native-json.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.hh"
#include "engine/result.hh"

namespace xttcp {

inline constexpr const char* native_runs_schema_name = "xttcp-runs";
inline constexpr int native_runs_schema_version = 1;

struct RunSet {
  std::vector<Result> runs;  // in the order they ran
  double pause_s = 0;        // --repeat-pause between them
};

// Pretty (2-space indent), ends with '\n'. The statistics are computed from the runs.
std::string render_native_runs(const RunSet& set);
// Reads either a set of runs ("xttcp-runs") or one result ("xttcp-result", a set of one run),
// so every reader of repeated runs also takes a single run. Its statistics are not read back:
// they are derived from the runs.
Expected<RunSet> parse_native_runs(std::string_view text);

}  // namespace xttcp
