// Summary statistics of repeated runs (median, mean, spread, a confidence interval) and the
// Student t distribution they need. Pure functions: no I/O, no state (docs/regression.md).
#pragma once

#include <cstddef>
#include <optional>
#include <span>

namespace xttcp {

// The interval summarize() gives, named wherever it is written.
inline constexpr const char* mean_ci_method = "Student t interval of the mean, 95 %";
inline constexpr double mean_ci_level = 0.95;

struct SampleSummary {
  size_t n = 0;
  double mean = 0, median = 0;
  double stddev = 0;  // sample standard deviation (n - 1); 0 for one value
  double cv = 0;      // stddev / |mean|; 0 when the mean is 0
  double min = 0, max = 0;
  // mean ± t(0.975, n - 1) · stddev / √n; absent for fewer than two values.
  std::optional<double> ci_low, ci_high;
};

// All zero (n = 0) for no values.
SampleSummary summarize(std::span<const double> values);

// P(T <= t) for Student's t with `df` > 0 degrees of freedom (df need not be whole: Welch).
double student_t_cdf(double t, double df);
// The t with student_t_cdf(t, df) = p, for 0 < p < 1.
double student_t_quantile(double p, double df);

}  // namespace xttcp
