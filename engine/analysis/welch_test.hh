// Welch's unequal-variances t-test: do two sets of repeated runs have different means?
// It does not assume the two sides are equally noisy (a new driver may change the spread too).
#pragma once

#include <optional>
#include <span>

namespace xttcp {

inline constexpr const char* welch_test_name = "Welch's t-test (two-sided)";

struct WelchResult {
  double t = 0;   // (mean(b) - mean(a)) / standard error
  double df = 0;  // Welch–Satterthwaite degrees of freedom
  double p = 1;   // two-sided p-value
};

// nullopt when either side has fewer than two values (no spread to test against). When both
// sides have no spread at all, p is 1 for equal means and 0 for different ones.
std::optional<WelchResult> welch_t_test(std::span<const double> a, std::span<const double> b);

}  // namespace xttcp
