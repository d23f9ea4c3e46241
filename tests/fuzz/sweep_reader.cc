// A sweep file as `compare` reads it (parse_native_sweep: within the 256 MiB and nesting bounds,
// every measured cell's runs as a result file's), then compared with itself
// (compare_sweeps). Whatever a file holds: what is accepted has unique planned cells, every
// measured cell has runs with a window, a sweep compared with itself finds no regression, and
// no table or JSON prints an infinity or a NaN. Input: the file's bytes, verbatim.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "engine/report/native_sweep.hh"
#include "tests/fuzz/fuzz_check.hh"
#include "tools/compare/sweep_comparison.hh"

namespace {

bool has_no_infinity(const std::string& text) {
  for (const char* word : {"inf", "nan", "INF", "NAN"})
    if (text.find(word) != std::string::npos) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto sweep = xttcp::parse_native_sweep(text);
  if (!sweep) {
    FUZZ_CHECK(sweep.error().message.find('\n') == std::string::npos);  // one line
    return 0;
  }
  FUZZ_CHECK(xttcp::is_native_sweep(text));
  FUZZ_CHECK(!sweep->plan.empty() && sweep->cells.size() <= sweep->plan.size());
  std::set<std::string> ids;
  for (const xttcp::SweepCell& cell : sweep->plan) FUZZ_CHECK(ids.insert(cell.id()).second);
  bool any_measured = false;
  for (const xttcp::SweepCellResult& cell : sweep->cells) {
    FUZZ_CHECK(ids.count(cell.cell.id()) == 1);
    if (cell.outcome != xttcp::CellOutcome::measured) continue;
    any_measured = true;
    FUZZ_CHECK(!cell.runs.runs.empty());
    for (const xttcp::Result& run : cell.runs.runs)
      FUZZ_CHECK(run.duration_s > 0 && std::isfinite(run.duration_s));
  }
  auto report = xttcp::compare_sweeps("base", *sweep, "new", *sweep, {}, true);
  FUZZ_CHECK(bool(report) == any_measured);
  if (report) {
    FUZZ_CHECK(report->overall != xttcp::Verdict::regression);
    for (xttcp::CellComparison& c : report->cells) {
      c.report.environment.clear();  // the file's own text, not figures
      c.report.workload.clear();
    }
    report->environment.clear();
    // Labels and reasons are the file's text too: only the figures' columns are checked.
    for (xttcp::UnmatchedCell& u : report->unmatched) u.why.clear();
    for (xttcp::CellComparison& c : report->cells) c.cell.backend.clear();
    FUZZ_CHECK(has_no_infinity(xttcp::render_sweep_compare_table(*report)));
    FUZZ_CHECK(has_no_infinity(xttcp::render_sweep_compare_json(*report)));
  }
  // What is rendered reads back as the same sweep.
  auto again = xttcp::parse_native_sweep(xttcp::render_native_sweep(*sweep));
  FUZZ_CHECK(again && again->plan == sweep->plan && again->cells.size() == sweep->cells.size());
  return 0;
}
