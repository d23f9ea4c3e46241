// A result file as `compare` and `report` read it (parse_native_runs: within the 256 MiB and
// nesting bounds, every run's figures plausible), then compared with itself and with its first
// run against its runs reversed (compare_sets). Whatever a file holds: what is accepted has a
// window and only finite figures, and no comparison prints an infinity or a NaN.
// Input: the file's bytes, verbatim.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/analysis/run_metrics.hh"
#include "engine/report/native_runs.hh"
#include "engine/report/plausible_result.hh"
#include "tests/fuzz/fuzz_check.hh"
#include "tools/compare/compare_inputs.hh"

namespace {

bool has_no_infinity(const std::string& text) {
  for (const char* word : {"inf", "nan", "INF", "NAN"})
    if (text.find(word) != std::string::npos) return false;
  return true;
}

void check_comparison(const xttcp::RunSet& base, const xttcp::RunSet& changed) {
  auto report = xttcp::compare_sets({"base", &base}, {"new", &changed}, {}, true);
  FUZZ_CHECK(report);
  for (const xttcp::MetricComparison& m : report->comparison.metrics) {
    FUZZ_CHECK(std::isfinite(m.base.mean) && std::isfinite(m.changed.mean));
    FUZZ_CHECK(!m.change_pct || std::isfinite(*m.change_pct));
    FUZZ_CHECK(!m.test || std::isfinite(m.test->p));
  }
  // The figures' lines only: host and spec strings in the differences are the file's own text.
  report->environment.clear();
  report->workload.clear();
  FUZZ_CHECK(has_no_infinity(xttcp::render_compare_table(*report)));
  FUZZ_CHECK(has_no_infinity(xttcp::render_compare_json(*report)));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto set = xttcp::parse_native_runs(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!set) {
    FUZZ_CHECK(set.error().message.find('\n') == std::string::npos);  // one line
    return 0;
  }
  FUZZ_CHECK(!set->runs.empty());
  for (const xttcp::Result& run : set->runs) {
    FUZZ_CHECK(run.duration_s > 0 && std::isfinite(run.duration_s));
    FUZZ_CHECK(xttcp::check_plausible(run, xttcp::result_file_rules));
    for (const xttcp::MetricValue& m : xttcp::run_metrics(run)) FUZZ_CHECK(std::isfinite(m.value));
  }
  check_comparison(*set, *set);
  xttcp::RunSet first{{set->runs.front()}, 0};
  xttcp::RunSet reversed = *set;
  std::reverse(reversed.runs.begin(), reversed.runs.end());
  check_comparison(first, reversed);
  check_comparison(reversed, first);
  // What is rendered as a set reads back as the same set.
  auto again = xttcp::parse_native_runs(xttcp::render_native_runs(*set));
  FUZZ_CHECK(again && again->runs.size() == set->runs.size());
  return 0;
}
