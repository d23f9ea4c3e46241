// The verdict of `xttcp compare` (docs/regression.md): per metric, the change between the two
// sides' means against a threshold, and with repeats on both sides whether that change is
// significant (Welch's t-test). Pure: Results in, a Comparison out.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/analysis/run_metrics.hh"
#include "engine/analysis/sample_stats.hh"
#include "engine/analysis/welch_test.hh"
#include "engine/result.hh"

namespace xttcp {

struct CompareOptions {
  double threshold_pct = 5;  // --threshold: a change smaller than this is no change
  double alpha = 0.05;       // --alpha: significance level of the test
  // --judge-all: the host-sensitive metrics (cycles/byte, CPU-s/GB, retransmits/GB) count in the
  // overall verdict too; by default they are shown, but another process's load must not fail a
  // check.
  bool judge_all = false;
};

enum class Verdict {
  same,            // within the threshold
  improvement,     // better by more than the threshold (and significant, with repeats)
  regression,      // worse by more than the threshold (and significant, with repeats)
  noise,           // past the threshold but not significant given the repeats
  not_comparable,  // no relative change (the base is 0)
};
const char* to_string(Verdict verdict);

struct MetricComparison {
  const MetricDefinition* metric = nullptr;
  SampleSummary base, changed;
  std::vector<double> base_values, changed_values;  // each run's value, in the runs' order
  std::optional<double> change_pct;  // (new mean - base mean) / |base mean|; nullopt: base 0
  std::optional<WelchResult> test;   // nullopt: a side has a single run
  Verdict verdict = Verdict::same;
  bool judged = true;  // counts in the overall verdict
};

struct Comparison {
  std::vector<MetricComparison> metrics;  // those both sides measured, in table order
  bool tested = false;                    // both sides have repeats: significance was tested
  Verdict overall = Verdict::same;        // regression, improvement or same
};

Comparison compare_runs(const std::vector<Result>& base, const std::vector<Result>& changed,
                        const CompareOptions& options);

}  // namespace xttcp
