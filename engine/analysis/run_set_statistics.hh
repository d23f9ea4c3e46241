// Per metric, the summary of a set of repeated runs (--repeat): what --json's "statistics" and
// the console's summary block both show, computed once here (docs/regression.md).
#pragma once

#include <vector>

#include "engine/analysis/run_metrics.hh"
#include "engine/analysis/sample_stats.hh"
#include "engine/result.hh"

namespace xttcp {

struct MetricStatistics {
  const MetricDefinition* metric;
  SampleSummary summary;  // over the runs that measured the metric
};

// In metric_definitions() order; a metric no run measured is left out.
std::vector<MetricStatistics> run_set_statistics(const std::vector<Result>& runs);

}  // namespace xttcp
