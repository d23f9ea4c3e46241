// Student's t distribution through the regularized incomplete beta function, evaluated with its
// continued fraction (modified Lentz); the quantile by bisection on the distribution function,
// which is monotonic and needs no starting guess.
#include "engine/analysis/sample_stats.hh"

#include <algorithm>
#include <cmath>
#include <vector>

namespace xttcp {

namespace {

// Continued fraction of I_x(a, b), accurate for x < (a + 1) / (a + b + 2).
double beta_fraction(double a, double b, double x) {
  constexpr double tiny = 1e-300;
  constexpr double epsilon = 1e-15;
  double c = 1.0;
  double d = 1.0 - (a + b) * x / (a + 1.0);
  if (std::fabs(d) < tiny) d = tiny;
  d = 1.0 / d;
  double fraction = d;
  for (int m = 1; m <= 1000; ++m) {
    const double m2 = 2.0 * m;
    // Even step, then odd step of the fraction's terms.
    double term = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
    d = 1.0 + term * d;
    c = 1.0 + term / c;
    if (std::fabs(d) < tiny) d = tiny;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1.0 / d;
    fraction *= d * c;
    term = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
    d = 1.0 + term * d;
    c = 1.0 + term / c;
    if (std::fabs(d) < tiny) d = tiny;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1.0 / d;
    const double step = d * c;
    fraction *= step;
    if (std::fabs(step - 1.0) < epsilon) break;
  }
  return fraction;
}

// Regularized incomplete beta I_x(a, b) for 0 <= x <= 1.
double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double log_front =
      std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  const double front = std::exp(log_front);
  if (x < (a + 1.0) / (a + b + 2.0)) return front * beta_fraction(a, b, x) / a;
  return 1.0 - front * beta_fraction(b, a, 1.0 - x) / b;  // the symmetric side converges there
}

}  // namespace

double student_t_cdf(double t, double df) {
  if (std::isinf(t)) return t > 0 ? 1.0 : 0.0;
  const double tail = 0.5 * incomplete_beta(df / 2.0, 0.5, df / (df + t * t));  // P(T > |t|)
  return t >= 0 ? 1.0 - tail : tail;
}

double student_t_quantile(double p, double df) {
  double low = -1e6, high = 1e6;
  for (int i = 0; i < 200 && high - low > 1e-12 * std::max(1.0, std::fabs(low)); ++i) {
    const double middle = 0.5 * (low + high);
    (student_t_cdf(middle, df) < p ? low : high) = middle;
  }
  return 0.5 * (low + high);
}

SampleSummary summarize(std::span<const double> values) {
  SampleSummary s;
  s.n = values.size();
  if (s.n == 0) return s;
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  s.min = sorted.front();
  s.max = sorted.back();
  const size_t half = s.n / 2;
  s.median = s.n % 2 == 1 ? sorted[half] : 0.5 * (sorted[half - 1] + sorted[half]);
  double sum = 0;
  for (double v : sorted) sum += v;
  s.mean = sum / static_cast<double>(s.n);
  if (s.n < 2) return s;
  double squares = 0;
  for (double v : sorted) squares += (v - s.mean) * (v - s.mean);
  s.stddev = std::sqrt(squares / static_cast<double>(s.n - 1));
  s.cv = s.mean != 0 ? s.stddev / std::fabs(s.mean) : 0;
  const double df = static_cast<double>(s.n - 1);
  const double half_width = student_t_quantile(0.5 + mean_ci_level / 2.0, df) * s.stddev /
                            std::sqrt(static_cast<double>(s.n));
  s.ci_low = s.mean - half_width;
  s.ci_high = s.mean + half_width;
  return s;
}

}  // namespace xttcp
