// What `xttcp compare` and `xttcp report` read and how they set two files side by side: a result
// file read within bounds (docs/regression.md, docs/hostile-peers.md) and the comparison of two
// of them, workload check included. Both commands use these, so they read and judge alike.
#pragma once

#include <string>

#include "base/status.hh"
#include "engine/report/native_runs.hh"
#include "engine/report/native_sweep.hh"
#include "tools/compare/compare_report.hh"

namespace xttcp {

// A result file (--json output: one run or a --repeat set): at most native_runs_max_bytes, its
// size checked before a byte is read; parsed within bounds; every run's figures plausible
// (check_plausible); every run the same test. Errors are one line naming the file and what is
// wrong: "new.json: runs[1]: summary.duration_s: 1e-300 s is not a measured time (...)".
Expected<RunSet> read_result_file(const std::string& path);

// What kind of result file `path` is, read within the same bounds: a sweep (xttcp sweep's
// --json) or not (then read_result_file says what is wrong with it, if anything).
Expected<bool> is_sweep_file(const std::string& path);
// A sweep file, every measured cell's runs checked as read_result_file checks a file's.
Expected<Sweep> read_sweep_file(const std::string& path);

struct CompareSet {
  std::string path;
  const RunSet* set = nullptr;
};

// Base against new: the verdict, the environment's differences and, when `allow_different` is
// set, the workload's; otherwise different workloads are an error naming the keys.
Expected<CompareReport> compare_sets(const CompareSet& base, const CompareSet& changed,
                                     const CompareOptions& options, bool allow_different);

}  // namespace xttcp
