#include "tools/report/report_input.hh"

#include <nlohmann/json.hpp>
#include <vector>

#include "engine/report/native_json.hh"
#include "tools/compare/compare_inputs.hh"

namespace xttcp {

Expected<std::string> report_input(const ReportRequest& request) {
  using nlohmann::ordered_json;
  std::vector<RunSet> sets;
  for (const std::string& path : request.files) {
    auto set = read_result_file(path);
    if (!set) return set.error();
    sets.push_back(std::move(*set));
  }
  CompareOptions options;
  if (request.threshold_pct) options.threshold_pct = *request.threshold_pct;
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
