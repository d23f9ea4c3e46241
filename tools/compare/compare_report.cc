#include "tools/compare/compare_report.hh"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

namespace xttcp {

namespace {

using nlohmann::ordered_json;

// Four significant digits, whatever the scale (Gbit/s, pkt/s, cycles/byte); never "inf" or
// "nan" (the readers refuse such inputs; this keeps the table honest whatever comes).
std::string figure(double v) { return std::isfinite(v) ? fmt::format("{:.4g}", v) : "-"; }

std::string mean_and_spread(const SampleSummary& s) {
  if (s.n < 2 || !std::isfinite(s.cv)) return figure(s.mean);
  return fmt::format("{} ±{:.1f}%", figure(s.mean), s.cv * 100);
}

std::string verdict_words(const Comparison& c) {
  std::string which;
  for (const MetricComparison& m : c.metrics)
    if (m.judged && m.verdict == c.overall && c.overall != Verdict::same)
      which += (which.empty() ? "" : ", ") + std::string(m.metric->label);
  switch (c.overall) {
    case Verdict::regression: return "REGRESSION (" + which + ")";
    case Verdict::improvement: return "no regression; improvement (" + which + ")";
    default: return "no regression";
  }
}

ordered_json number(double v) { return std::isfinite(v) ? ordered_json(v) : ordered_json(nullptr); }

ordered_json summary_json(const SampleSummary& s, const std::vector<double>& values) {
  ordered_json each = ordered_json::array();
  for (double v : values) each.push_back(number(v));
  return {{"n", s.n},
          {"values", std::move(each)},
          {"mean", number(s.mean)},
          {"median", number(s.median)},
          {"stddev", number(s.stddev)},
          {"cv", number(s.cv)},
          {"min", number(s.min)},
          {"max", number(s.max)},
          {"ci_low", s.ci_low ? number(*s.ci_low) : ordered_json(nullptr)},
          {"ci_high", s.ci_high ? number(*s.ci_high) : ordered_json(nullptr)}};
}

ordered_json differences_json(const std::vector<Difference>& list, bool with_warning) {
  ordered_json out = ordered_json::array();
  for (const Difference& d : list) {
    ordered_json entry = {{"key", d.key},
                          {"base", ordered_json::parse(d.base)},
                          {"new", ordered_json::parse(d.changed)}};
    if (with_warning) entry["warning"] = d.warning;
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace

std::string render_compare_table(const CompareReport& r) {
  const Comparison& c = r.comparison;
  std::string out = fmt::format("base: {} ({} run{})\nnew:  {} ({} run{})\n", r.base.path,
                                r.base.runs, r.base.runs == 1 ? "" : "s", r.changed.path,
                                r.changed.runs, r.changed.runs == 1 ? "" : "s");
  if (c.tested)
    out += fmt::format("threshold {}%, significance: {}, alpha {} (mean ±cv over the runs)\n",
                       figure(r.options.threshold_pct), welch_test_name, figure(r.options.alpha));
  else
    out += fmt::format(
        "threshold {}%; single run on a side: no significance test is possible, "
        "only the threshold applies (use --repeat N on both)\n",
        figure(r.options.threshold_pct));
  out += fmt::format("\n{:<18} {:<7} {:>18} {:>18} {:>9} {:>8}  {}\n", "metric", "unit", "base",
                     "new", "change", "p", "verdict");
  for (const MetricComparison& m : c.metrics) {
    const std::string change = m.change_pct ? fmt::format("{:+.1f}%", *m.change_pct) : "-";
    const std::string p = m.test ? fmt::format("{:.3g}", m.test->p) : "-";
    out += fmt::format("{:<18} {:<7} {:>18} {:>18} {:>9} {:>8}  {}\n", m.metric->label,
                       m.metric->unit, mean_and_spread(m.base), mean_and_spread(m.changed), change,
                       p, std::string(to_string(m.verdict)) + (m.judged ? "" : " (not judged)"));
  }
  for (const MetricComparison& m : c.metrics)
    if (!m.judged) {
      out +=
          "(not judged: figures that anything else running on the host moves; "
          "--judge-all counts them)\n";
      break;
    }
  if (!r.workload.empty()) {
    out += "\nworkloads differ (compared anyway: --allow-different-workload):\n";
    for (const Difference& d : r.workload)
      out += fmt::format("  {}: {} -> {}\n", d.key, d.base, d.changed);
  }
  if (!r.environment.empty()) {
    out += "\nenvironment differences:\n";
    for (const Difference& d : r.environment)
      out +=
          fmt::format("  {}{}: {} -> {}\n", d.warning ? "warning: " : "", d.key, d.base, d.changed);
  }
  out += "\nverdict: " + verdict_words(c) + "\n";
  return out;
}

std::string render_compare_json(const CompareReport& r) {
  const Comparison& c = r.comparison;
  ordered_json doc;
  doc["schema"] = "xttcp-compare";
  doc["schema_version"] = 1;
  doc["base"] = {{"file", r.base.path}, {"runs", r.base.runs}};
  doc["new"] = {{"file", r.changed.path}, {"runs", r.changed.runs}};
  doc["threshold_pct"] = number(r.options.threshold_pct);
  doc["alpha"] = number(r.options.alpha);
  doc["test"] = c.tested ? ordered_json(welch_test_name) : ordered_json(nullptr);
  ordered_json metrics = ordered_json::array();
  for (const MetricComparison& m : c.metrics) {
    metrics.push_back({{"metric", m.metric->key},
                       {"unit", m.metric->unit},
                       {"better", m.metric->better == Better::higher ? "higher" : "lower"},
                       {"base", summary_json(m.base, m.base_values)},
                       {"new", summary_json(m.changed, m.changed_values)},
                       {"change_pct", m.change_pct ? number(*m.change_pct) : ordered_json(nullptr)},
                       {"p_value", m.test ? number(m.test->p) : ordered_json(nullptr)},
                       {"verdict", to_string(m.verdict)},
                       {"judged", m.judged}});
  }
  doc["metrics"] = std::move(metrics);
  doc["workload_differences"] = differences_json(r.workload, false);
  doc["environment_differences"] = differences_json(r.environment, true);
  doc["verdict"] = to_string(c.overall);
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace xttcp
