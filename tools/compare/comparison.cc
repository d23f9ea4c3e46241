#include "tools/compare/comparison.hh"

#include <cmath>
#include <map>

namespace xttcp {

const char* to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::same: return "same";
    case Verdict::improvement: return "improvement";
    case Verdict::regression: return "regression";
    case Verdict::noise: return "noise";
    case Verdict::not_comparable: return "n/a";
  }
  return "?";
}

namespace {

std::map<std::string, std::vector<double>> values_by_key(const std::vector<Result>& runs) {
  std::map<std::string, std::vector<double>> values;
  for (const Result& run : runs)
    for (const MetricValue& m : run_metrics(run)) values[m.metric->key].push_back(m.value);
  return values;
}

Verdict judge(const MetricComparison& m, const CompareOptions& options) {
  if (!m.change_pct) return m.changed.mean == 0 ? Verdict::same : Verdict::not_comparable;
  const double toward_better = m.metric->better == Better::higher ? *m.change_pct : -*m.change_pct;
  if (std::fabs(toward_better) <= options.threshold_pct) return Verdict::same;
  if (m.test && !(m.test->p < options.alpha)) return Verdict::noise;
  return toward_better > 0 ? Verdict::improvement : Verdict::regression;
}

}  // namespace

Comparison compare_runs(const std::vector<Result>& base, const std::vector<Result>& changed,
                        const CompareOptions& options) {
  const auto base_values = values_by_key(base);
  const auto changed_values = values_by_key(changed);
  Comparison out;
  out.tested = base.size() >= 2 && changed.size() >= 2;
  bool regressed = false, improved = false;
  for (const MetricDefinition& def : metric_definitions()) {
    auto b = base_values.find(def.key);
    auto c = changed_values.find(def.key);
    if (b == base_values.end() || c == changed_values.end()) continue;
    MetricComparison m;
    m.metric = &def;
    m.base = summarize(b->second);
    m.changed = summarize(c->second);
    m.base_values = b->second;
    m.changed_values = c->second;
    // A change or p-value that is not a number (a base mean so small that dividing by it
    // overflows, variances that underflow) is no figure: n/a, or the threshold alone.
    if (m.base.mean != 0) {
      const double change = (m.changed.mean - m.base.mean) / std::fabs(m.base.mean) * 100;
      if (std::isfinite(change)) m.change_pct = change;
    }
    m.test = welch_t_test(b->second, c->second);
    if (m.test && !std::isfinite(m.test->p)) m.test.reset();
    m.verdict = judge(m, options);
    m.judged = !def.host_sensitive || options.judge_all;
    regressed = regressed || (m.judged && m.verdict == Verdict::regression);
    improved = improved || (m.judged && m.verdict == Verdict::improvement);
    out.metrics.push_back(m);
  }
  out.overall = regressed ? Verdict::regression : improved ? Verdict::improvement : Verdict::same;
  return out;
}

}  // namespace xttcp
