#include "engine/report/native_runs.hh"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "engine/analysis/run_set_statistics.hh"
#include "engine/report/bounded_json.hh"
#include "engine/report/native_json.hh"
#include "engine/report/plausible_result.hh"

namespace xttcp {

namespace {

using nlohmann::ordered_json;

// A set nests two levels deeper than one result (set > runs[] > result); its runs may add up
// past one result's size bound.
constexpr JsonLimits native_runs_limits{native_runs_max_bytes, native_result_limits.max_depth + 2};

ordered_json finite_number(double v) {
  return std::isfinite(v) ? ordered_json(v) : ordered_json(nullptr);
}

ordered_json optional_number(const std::optional<double>& v) {
  return v ? finite_number(*v) : ordered_json(nullptr);
}

ordered_json statistics_json(const std::vector<Result>& runs) {
  ordered_json metrics = ordered_json::object();
  for (const MetricStatistics& m : run_set_statistics(runs)) {
    const SampleSummary& s = m.summary;
    metrics[m.metric->key] = {{"unit", m.metric->unit},
                              {"n", s.n},
                              {"median", finite_number(s.median)},
                              {"mean", finite_number(s.mean)},
                              {"stddev", finite_number(s.stddev)},
                              {"cv", finite_number(s.cv)},
                              {"min", finite_number(s.min)},
                              {"max", finite_number(s.max)},
                              {"ci_low", optional_number(s.ci_low)},
                              {"ci_high", optional_number(s.ci_high)}};
  }
  return {{"ci_method", mean_ci_method}, {"metrics", std::move(metrics)}};
}

}  // namespace

ordered_json runs_to_json(const RunSet& set) {
  ordered_json doc;
  doc["schema"] = native_runs_schema_name;
  doc["schema_version"] = native_runs_schema_version;
  doc["tool"] = {{"name", "xttcp"},
                 {"version", set.runs.empty() ? std::string() : set.runs.front().tool_version}};
  doc["repeat"] = {{"count", set.runs.size()}, {"pause_s", finite_number(set.pause_s)}};
  doc["statistics"] = statistics_json(set.runs);
  ordered_json runs = ordered_json::array();
  for (const Result& run : set.runs) runs.push_back(result_to_json(run));
  doc["runs"] = std::move(runs);
  return doc;
}

std::string render_native_runs(const RunSet& set) {
  return runs_to_json(set).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

Expected<RunSet> parse_native_runs(std::string_view text) {
  auto doc = parse_bounded_json(text, native_runs_limits, "result file");
  if (!doc) return doc.error();
  return runs_from_json(*doc);
}

Expected<RunSet> runs_from_json(const ordered_json& parsed) {
  const ordered_json* doc = &parsed;
  if (!doc->is_object()) return fail("result file: expected a JSON object");
  auto schema = doc->find("schema");
  if (schema == doc->end() || !schema->is_string())
    return fail("result file: no \"schema\"; not an xttcp result");
  RunSet set;
  if (*schema == native_schema_name) {
    auto run = result_from_json(*doc);
    if (!run) return run.error();
    if (Status plausible = check_plausible(*run, result_file_rules); !plausible)
      return plausible.error();
    set.runs.push_back(std::move(*run));
    return set;
  }
  if (*schema != native_runs_schema_name)
    return fail(fmt::format("result file: schema {} is neither \"{}\" nor \"{}\"", schema->dump(),
                            native_schema_name, native_runs_schema_name));
  auto version = doc->find("schema_version");
  if (version == doc->end() || !version->is_number_integer())
    return fail("result file: schema_version: missing or not an integer");
  const auto v = version->get<int64_t>();
  if (v < 1 || v > native_runs_schema_version)
    return fail(
        fmt::format("result file: schema_version: {} is not supported (this xttcp reads "
                    "1 to {})",
                    v, native_runs_schema_version));
  if (auto repeat = doc->find("repeat"); repeat != doc->end() && repeat->is_object()) {
    auto pause = repeat->find("pause_s");
    if (pause != repeat->end() && pause->is_number()) set.pause_s = pause->get<double>();
  }
  auto runs = doc->find("runs");
  if (runs == doc->end() || !runs->is_array() || runs->empty())
    return fail("result file: runs: expected a non-empty array of results");
  for (size_t i = 0; i < runs->size(); ++i) {
    auto run = result_from_json((*runs)[i]);
    if (!run) return fail(fmt::format("runs[{}]: {}", i, run.error().message));
    if (Status plausible = check_plausible(*run, result_file_rules); !plausible)
      return fail(fmt::format("runs[{}]: {}", i, plausible.error().message));
    set.runs.push_back(std::move(*run));
  }
  return set;
}

}  // namespace xttcp
