#include "engine/analysis/run_set_statistics.hh"

#include <map>
#include <string>

namespace xttcp {

std::vector<MetricStatistics> run_set_statistics(const std::vector<Result>& runs) {
  std::map<std::string, std::vector<double>> values;  // by key; order comes from the table
  for (const Result& run : runs)
    for (const MetricValue& m : run_metrics(run)) values[m.metric->key].push_back(m.value);
  std::vector<MetricStatistics> out;
  for (const MetricDefinition& def : metric_definitions()) {
    auto it = values.find(def.key);
    if (it != values.end()) out.push_back({&def, summarize(it->second)});
  }
  return out;
}

}  // namespace xttcp
