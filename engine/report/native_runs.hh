// A set of repeated runs of one test (--repeat N): every run's native result and, per metric,
// the runs' summary statistics (schema "xttcp-runs", docs/native-json.md).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.hh"
#include "engine/result.hh"

namespace xttcp {

inline constexpr const char* native_runs_schema_name = "xttcp-runs";
inline constexpr int native_runs_schema_version = 1;
// The largest result file read back (a set of runs may add up past one result's 16 MiB): the
// readers of files check a file's size against it before reading (read_whole_file).
inline constexpr std::size_t native_runs_max_bytes = 256u * 1024 * 1024;

struct RunSet {
  std::vector<Result> runs;  // in the order they ran
  double pause_s = 0;        // --repeat-pause between them
};

// Pretty (2-space indent), ends with '\n'. The statistics are computed from the runs.
std::string render_native_runs(const RunSet& set);
// Reads either a set of runs ("xttcp-runs") or one result ("xttcp-result", a set of one run),
// so every reader of repeated runs also takes a single run. Its statistics are not read back:
// they are derived from the runs. Every run's figures must be plausible (check_plausible with
// result_file_rules); the error names the run and the field: "runs[2]: summary.duration_s: ...".
Expected<RunSet> parse_native_runs(std::string_view text);

// The same two as JSON values, for documents that hold sets (a sweep's cells: native_sweep.hh).
nlohmann::ordered_json runs_to_json(const RunSet& set);
Expected<RunSet> runs_from_json(const nlohmann::ordered_json& doc);

}  // namespace xttcp
