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
  // Moved by whatever else runs on the host: counted from the whole host (cycles/byte,
  // retransmits), or CPU time, which contention for caches and cores stretches. By default it is
  // shown with its verdict but not judged in the overall one (compare --judge-all).
  bool host_sensitive = false;
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
