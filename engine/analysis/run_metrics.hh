// The figures of one run that a regression check compares, read from its Result: what is
// better (higher or lower), the unit, and only the metrics the run measured.
#pragma once

#include <string>
#include <vector>

#include "engine/result.hh"

namespace xttcp {

enum class Better { higher, lower };

struct MetricDefinition {
  const char* key;    // JSON key, e.g. "throughput_gbps"
  const char* label;  // table label
  const char* unit;
  Better better;
  // Counted from the whole host (every process, every connection): anything else running moves
  // it, so by default it is shown with its verdict but not judged in the overall one.
  bool system_wide = false;
};

// Every metric xttcp knows, in table order.
const std::vector<MetricDefinition>& metric_definitions();

struct MetricValue {
  const MetricDefinition* metric;
  double value;
};

// The run's own figures (not its peer's), in metric_definitions() order; a metric the run did
// not measure (UDP loss of a TCP run, latency without -lm) is left out.
std::vector<MetricValue> run_metrics(const Result& run);

}  // namespace xttcp
