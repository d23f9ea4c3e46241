#include "engine/analysis/welch_test.hh"

#include <cmath>
#include <limits>

#include "engine/analysis/sample_stats.hh"

namespace xttcp {

std::optional<WelchResult> welch_t_test(std::span<const double> a, std::span<const double> b) {
  if (a.size() < 2 || b.size() < 2) return std::nullopt;
  const SampleSummary sa = summarize(a);
  const SampleSummary sb = summarize(b);
  const double va = sa.stddev * sa.stddev / static_cast<double>(sa.n);
  const double vb = sb.stddev * sb.stddev / static_cast<double>(sb.n);
  WelchResult r;
  if (va + vb == 0) {  // both sides exactly constant
    const bool same = sa.mean == sb.mean;
    r.t = same ? 0 : std::copysign(std::numeric_limits<double>::infinity(), sb.mean - sa.mean);
    r.df = static_cast<double>(sa.n + sb.n - 2);
    r.p = same ? 1 : 0;
    return r;
  }
  r.t = (sb.mean - sa.mean) / std::sqrt(va + vb);
  r.df = (va + vb) * (va + vb) /
         (va * va / static_cast<double>(sa.n - 1) + vb * vb / static_cast<double>(sb.n - 1));
  r.p = 2.0 * student_t_cdf(-std::fabs(r.t), r.df);  // the lower tail keeps small p exact
  return r;
}

}  // namespace xttcp
