#include "tools/compare/compare_inputs.hh"

#include <fmt/format.h>

#include "base/read_file.hh"
#include "tools/compare/differences.hh"

namespace xttcp {

namespace {

// Every run of one file must be the same test, or its statistics mean nothing.
Status check_one_workload(const std::string& path, const RunSet& set) {
  for (size_t i = 1; i < set.runs.size(); ++i) {
    auto diff = workload_differences(set.runs.front(), set.runs[i]);
    if (!diff.empty())
      return fail(fmt::format("{}: run {} is not the same test as run 1 ({}: {} -> {})", path,
                              i + 1, diff.front().key, diff.front().base, diff.front().changed));
  }
  return ok();
}

}  // namespace

Expected<RunSet> read_result_file(const std::string& path) {
  Expected<std::string> text = read_whole_file(path, native_runs_max_bytes);
  if (!text) return text.error();
  auto set = parse_native_runs(*text);
  if (!set) return fail(fmt::format("{}: {}", path, set.error().message));
  if (Status same = check_one_workload(path, *set); !same) return same.error();
  return set;
}

Expected<bool> is_sweep_file(const std::string& path) {
  Expected<std::string> text = read_whole_file(path, native_runs_max_bytes);
  if (!text) return text.error();
  return is_native_sweep(*text);
}

Expected<Sweep> read_sweep_file(const std::string& path) {
  Expected<std::string> text = read_whole_file(path, native_runs_max_bytes);
  if (!text) return text.error();
  auto sweep = parse_native_sweep(*text);
  if (!sweep) return fail(fmt::format("{}: {}", path, sweep.error().message));
  for (size_t i = 0; i < sweep->cells.size(); ++i)
    if (sweep->cells[i].outcome == CellOutcome::measured)
      if (Status same =
              check_one_workload(fmt::format("{}: cells[{}]", path, i), sweep->cells[i].runs);
          !same)
        return same.error();
  return sweep;
}

Expected<CompareReport> compare_sets(const CompareSet& base, const CompareSet& changed,
                                     const CompareOptions& options, bool allow_different) {
  const RunSet& b = *base.set;
  const RunSet& c = *changed.set;
  CompareReport report;
  report.base = {base.path, b.runs.size()};
  report.changed = {changed.path, c.runs.size()};
  report.options = options;
  report.workload = workload_differences(b.runs.front(), c.runs.front());
  if (!report.workload.empty() && !allow_different) {
    std::string list;
    for (const Difference& d : report.workload)
      list += fmt::format("{}{}: {} -> {}", list.empty() ? "" : "; ", d.key, d.base, d.changed);
    return fail("the two files are different tests (" + list +
                "); --allow-different-workload compares them anyway");
  }
  report.environment = environment_differences(b.runs.front(), c.runs.front());
  report.comparison = compare_runs(b.runs, c.runs, options);
  return report;
}

}  // namespace xttcp
