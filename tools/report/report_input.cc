#include "tools/report/report_input.hh"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "engine/report/native_json.hh"
#include "tools/compare/compare_inputs.hh"
#include "tools/compare/sweep_comparison.hh"

namespace xttcp {

namespace {

using nlohmann::ordered_json;

// A sweep as the page draws it: every cell with its statistics (as --repeat writes them) and its
// runs, the failed ones with their reason.
ordered_json sweep_json(const std::string& path, const Sweep& sweep) {
  ordered_json cells = ordered_json::array();
  for (const SweepCellResult& cell : sweep.cells) {
    ordered_json c = {{"id", cell.cell.id()},
                      {"label", cell.cell.label()},
                      {"kind", to_string(cell.cell.kind)},
                      {"connections", cell.cell.connections},
                      {"size_bytes", cell.cell.size_bytes},
                      {"backend", cell.cell.backend},
                      {"outcome", cell.outcome == CellOutcome::measured ? "measured" : "failed"},
                      {"error", cell.error}};
    if (cell.outcome == CellOutcome::measured) {
      ordered_json set = runs_to_json(cell.runs);
      c["statistics"] = std::move(set["statistics"]);
      c["runs"] = std::move(set["runs"]);
    }
    cells.push_back(std::move(c));
  }
  return {{"path", path},
          {"interrupted", sweep.interrupted},
          {"planned", sweep.plan.size()},
          {"cells", std::move(cells)}};
}

// Sweeps: each one's cells, and each against the first (a verdict per cell, compare's).
Expected<std::string> sweeps_input(const ReportRequest& request, const CompareOptions& options,
                                   size_t* cells_drawn) {
  std::vector<Sweep> sweeps;
  for (const std::string& path : request.files) {
    auto sweep = read_sweep_file(path);
    if (!sweep) return sweep.error();
    sweeps.push_back(std::move(*sweep));
  }
  ordered_json doc;
  doc["title"] = request.title;
  doc["files"] = ordered_json::array();
  doc["comparisons"] = ordered_json::array();
  doc["sweeps"] = ordered_json::array();
  for (size_t i = 0; i < sweeps.size(); ++i)
    doc["sweeps"].push_back(sweep_json(request.files[i], sweeps[i]));
  doc["sweep_comparisons"] = ordered_json::array();
  for (size_t i = 1; i < sweeps.size(); ++i) {
    auto compared = compare_sweeps(request.files.front(), sweeps.front(), request.files[i],
                                   sweeps[i], options, true);
    if (!compared) return fail("report: " + compared.error().message);
    if (cells_drawn != nullptr) *cells_drawn += compared->cells.size();
    doc["sweep_comparisons"].push_back(
        {{"path", request.files[i]},
         {"compare", ordered_json::parse(render_sweep_compare_json(*compared))}});
  }
  return doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

Expected<std::string> report_input(const ReportRequest& request, size_t* cells_drawn) {
  if (cells_drawn != nullptr) *cells_drawn = 0;
  CompareOptions options;
  if (request.threshold_pct) options.threshold_pct = *request.threshold_pct;
  // A page of sweeps, or of result files: not both.
  std::optional<std::string> sweep_file, result_file;
  for (const std::string& path : request.files) {
    auto sweep = is_sweep_file(path);
    if (!sweep) return sweep.error();
    (*sweep ? sweep_file : result_file) = path;
  }
  if (sweep_file && result_file)
    return fail(
        fmt::format("report: {} is a sweep and {} is not: a page shows sweeps or result "
                    "files, not both",
                    *sweep_file, *result_file));
  if (sweep_file) return sweeps_input(request, options, cells_drawn);
  std::vector<RunSet> sets;
  for (const std::string& path : request.files) {
    auto set = read_result_file(path);
    if (!set) return set.error();
    sets.push_back(std::move(*set));
  }
  ordered_json doc;
  doc["title"] = request.title;
  doc["files"] = ordered_json::array();
  for (size_t i = 0; i < sets.size(); ++i) {
    ordered_json runs = ordered_json::array();
    for (const Result& run : sets[i].runs) runs.push_back(result_to_json(run));
    doc["files"].push_back({{"path", request.files[i]}, {"runs", std::move(runs)}});
  }
  doc["comparisons"] = ordered_json::array();
  for (size_t i = 1; i < sets.size(); ++i) {
    // The page shows what differs; it does not refuse it (compare --allow-different-workload).
    auto compared = compare_sets({request.files.front(), &sets.front()},
                                 {request.files[i], &sets[i]}, options, true);
    if (!compared) return compared.error();
    doc["comparisons"].push_back(
        {{"path", request.files[i]},
         {"compare", ordered_json::parse(render_compare_json(*compared))}});
  }
  // Text from the files that is not UTF-8 is replaced, not an error: Python reads UTF-8 only.
  return doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace xttcp
