#include "tools/compare/sweep_comparison.hh"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "tools/compare/compare_inputs.hh"

namespace xttcp {

namespace {

using nlohmann::ordered_json;

std::string figure(double v) { return std::isfinite(v) ? fmt::format("{:.4g}", v) : "-"; }

std::map<std::string, const SweepCellResult*> by_id(const Sweep& sweep) {
  std::map<std::string, const SweepCellResult*> cells;
  for (const SweepCellResult& cell : sweep.cells) cells[cell.cell.id()] = &cell;
  return cells;
}

// Why a cell of one side has no counterpart measured on the other.
std::string missing_words(const SweepCellResult* cell, const Sweep& sweep, const std::string& path,
                          const SweepCell& wanted) {
  if (cell != nullptr && cell->outcome == CellOutcome::failed)
    return fmt::format("failed in {}: {}", path, cell->error);
  const bool planned = std::find(sweep.plan.begin(), sweep.plan.end(), wanted) != sweep.plan.end();
  return planned ? fmt::format("not reached in {} (the sweep was stopped)", path)
                 : fmt::format("not in {}'s plan", path);
}

int headline_of(const CellComparison& c) {
  const std::string key = headline_metric(c.cell.kind);
  const auto& metrics = c.report.comparison.metrics;
  for (size_t i = 0; i < metrics.size(); ++i)
    if (std::string(metrics[i].metric->key) == key) return static_cast<int>(i);
  return -1;
}

const char* verdict_word(Verdict v) {
  switch (v) {
    case Verdict::regression: return "REGRESSION";
    case Verdict::improvement: return "improvement";
    case Verdict::noise: return "noise";
    case Verdict::not_comparable: return "not comparable";
    default: return "same";
  }
}

// The metrics that gave a cell its verdict: "throughput, UDP loss".
std::string deciding_metrics(const Comparison& c) {
  std::string which;
  for (const MetricComparison& m : c.metrics)
    if (m.judged && m.verdict == c.overall && c.overall != Verdict::same)
      which += (which.empty() ? "" : ", ") + std::string(m.metric->label);
  return which;
}

ordered_json number(double v) { return std::isfinite(v) ? ordered_json(v) : ordered_json(nullptr); }

// Holm's step-down over the judged tests of every cell: sorted by p, the k-th smallest of m
// (from 1) is significant while p < alpha / (m - k + 1); from the first that is not, none is.
// Equivalently its adjusted p, the largest of (m - j + 1) p_j for j <= k (at most 1), is below
// alpha: that is the p a cell shows. A change past the threshold whose test is not significant in
// the family is noise, as compare calls it for one file. Each cell's overall verdict is then
// taken again, as compare_runs takes it.
size_t correct_for_the_family(std::vector<CellComparison>& cells, double alpha) {
  struct Member {
    MetricComparison* metric;
    std::optional<double>* family_p;
  };
  std::vector<Member> family;
  for (CellComparison& c : cells) {
    c.family_p.assign(c.report.comparison.metrics.size(), std::nullopt);
    for (size_t i = 0; i < c.report.comparison.metrics.size(); ++i) {
      MetricComparison& m = c.report.comparison.metrics[i];
      if (m.judged && m.test) family.push_back({&m, &c.family_p[i]});
    }
  }
  std::stable_sort(family.begin(), family.end(), [](const Member& a, const Member& b) {
    return a.metric->test->p < b.metric->test->p;
  });
  double adjusted = 0;
  for (size_t k = 0; k < family.size(); ++k) {
    const double scaled = double(family.size() - k) * family[k].metric->test->p;
    adjusted = std::min(1.0, std::max(adjusted, scaled));
    *family[k].family_p = adjusted;
    Verdict& v = family[k].metric->verdict;
    if (!(adjusted < alpha) && (v == Verdict::regression || v == Verdict::improvement))
      v = Verdict::noise;
  }
  for (CellComparison& c : cells) {
    bool regressed = false, improved = false;
    for (const MetricComparison& m : c.report.comparison.metrics) {
      regressed = regressed || (m.judged && m.verdict == Verdict::regression);
      improved = improved || (m.judged && m.verdict == Verdict::improvement);
    }
    c.report.comparison.overall = regressed  ? Verdict::regression
                                  : improved ? Verdict::improvement
                                             : Verdict::same;
  }
  return family.size();
}

}  // namespace

Expected<SweepCompareReport> compare_sweeps(const std::string& base_path, const Sweep& base,
                                            const std::string& new_path, const Sweep& changed,
                                            const CompareOptions& options, bool allow_different) {
  SweepCompareReport report;
  report.options = options;
  report.base.path = base_path;
  report.changed.path = new_path;
  const auto base_cells = by_id(base);
  const auto new_cells = by_id(changed);
  // Every cell either file knows, in the base's plan order, then the new one's extras.
  std::vector<SweepCell> every = base.plan;
  for (const SweepCell& cell : changed.plan)
    if (std::find(every.begin(), every.end(), cell) == every.end()) every.push_back(cell);
  for (const SweepCell& cell : every) {
    const auto b = base_cells.find(cell.id());
    const auto n = new_cells.find(cell.id());
    const SweepCellResult* in_base = b == base_cells.end() ? nullptr : b->second;
    const SweepCellResult* in_new = n == new_cells.end() ? nullptr : n->second;
    const bool base_measured = in_base && in_base->outcome == CellOutcome::measured;
    const bool new_measured = in_new && in_new->outcome == CellOutcome::measured;
    report.base.runs += base_measured;
    report.changed.runs += new_measured;
    if (!base_measured || !new_measured) {
      if (!base_measured && !new_measured)
        report.unmatched.push_back({cell, missing_words(in_base, base, base_path, cell) + "; " +
                                              missing_words(in_new, changed, new_path, cell)});
      else if (!base_measured)
        report.unmatched.push_back({cell, missing_words(in_base, base, base_path, cell)});
      else
        report.unmatched.push_back({cell, missing_words(in_new, changed, new_path, cell)});
      continue;
    }
    auto compared = compare_sets({base_path, &in_base->runs}, {new_path, &in_new->runs}, options,
                                 allow_different);
    if (!compared)
      return fail(fmt::format("the cell '{}': {}", cell.label(), compared.error().message));
    CellComparison c{cell, std::move(*compared)};
    c.headline = headline_of(c);
    if (c.headline >= 0) {
      const MetricComparison& m = c.report.comparison.metrics[size_t(c.headline)];
      if (m.change_pct)
        c.worse_by_pct = m.metric->better == Better::higher ? -*m.change_pct : *m.change_pct;
    }
    if (report.environment.empty() && report.cells.empty())
      report.environment = c.report.environment;
    report.cells.push_back(std::move(c));
  }
  if (report.cells.empty())
    return fail(fmt::format("no cell was measured in both {} and {}", base_path, new_path));
  report.family_tests = correct_for_the_family(report.cells, options.alpha);
  for (const CellComparison& c : report.cells)
    if (c.report.comparison.overall == Verdict::regression) report.overall = Verdict::regression;
  // Regressions first, then by how much worse the headline figure got.
  std::stable_sort(report.cells.begin(), report.cells.end(),
                   [](const CellComparison& a, const CellComparison& b) {
                     const bool ar = a.report.comparison.overall == Verdict::regression;
                     const bool br = b.report.comparison.overall == Verdict::regression;
                     if (ar != br) return ar;
                     return a.worse_by_pct > b.worse_by_pct;
                   });
  return report;
}

std::string render_sweep_compare_table(const SweepCompareReport& r) {
  std::string out = fmt::format("base: {} ({} cells measured)\nnew:  {} ({} cells measured)\n",
                                r.base.path, r.base.runs, r.changed.path, r.changed.runs);
  out += fmt::format(
      "threshold {}%, alpha {} over the sweep: each cell judged as 'xttcp compare' judges two "
      "files, its tests significant together (Holm, {} tests); worst first\n\n",
      figure(r.options.threshold_pct), figure(r.options.alpha), r.family_tests);
  size_t width = 4;
  for (const CellComparison& c : r.cells) width = std::max(width, c.cell.label().size());
  out += fmt::format("{:<{}}  {:<18} {:>12} {:>12} {:>9} {:>8}  {}\n", "cell", width, "headline",
                     "base", "new", "change", "p (Holm)", "verdict");
  size_t regressed = 0;
  for (const CellComparison& c : r.cells) {
    std::string metric = "-", base = "-", changed = "-", change = "-", p = "-";
    if (c.headline >= 0) {
      const MetricComparison& m = c.report.comparison.metrics[size_t(c.headline)];
      metric = fmt::format("{} ({})", m.metric->label, m.metric->unit);
      base = figure(m.base.mean);
      changed = figure(m.changed.mean);
      if (m.change_pct) change = fmt::format("{:+.1f}%", *m.change_pct);
      // The p the verdict used: adjusted for the sweep's family of tests.
      if (const auto& fp = c.family_p.at(size_t(c.headline)); fp)
        p = fmt::format("{:.3g}", *fp);
      else if (m.test)
        p = fmt::format("{:.3g}", m.test->p);
    }
    const Verdict v = c.report.comparison.overall;
    regressed += v == Verdict::regression;
    std::string verdict = verdict_word(v);
    if (const std::string why = deciding_metrics(c.report.comparison); !why.empty())
      verdict += " (" + why + ")";
    // Past the threshold but not significant: said so, not "same".
    if (v == Verdict::same && c.headline >= 0) {
      const MetricComparison& m = c.report.comparison.metrics[size_t(c.headline)];
      if (m.verdict != Verdict::same)
        verdict = fmt::format("{} ({})", verdict_word(m.verdict), m.metric->label);
    }
    out += fmt::format("{:<{}}  {:<18} {:>12} {:>12} {:>9} {:>8}  {}\n", c.cell.label(), width,
                       metric, base, changed, change, p, verdict);
  }
  if (!r.unmatched.empty()) {
    out += "\nnot judged (measured in one file only, or in neither):\n";
    for (const UnmatchedCell& u : r.unmatched)
      out += fmt::format("  {}: {}\n", u.cell.label(), u.why);
  }
  if (!r.environment.empty()) {
    out += "\nenvironment differences:\n";
    for (const Difference& d : r.environment)
      out +=
          fmt::format("  {}{}: {} -> {}\n", d.warning ? "WARNING " : "", d.key, d.base, d.changed);
  }
  out += r.overall == Verdict::regression
             ? fmt::format("\nverdict: REGRESSION in {} of {} cells\n", regressed, r.cells.size())
             : fmt::format("\nverdict: no regression in {} cells\n", r.cells.size());
  return out;
}

std::string render_sweep_compare_json(const SweepCompareReport& r) {
  ordered_json doc;
  doc["schema"] = "xttcp-sweep-compare";
  doc["schema_version"] = 1;
  doc["base"] = {{"path", r.base.path}, {"cells_measured", r.base.runs}};
  doc["new"] = {{"path", r.changed.path}, {"cells_measured", r.changed.runs}};
  doc["threshold_pct"] = number(r.options.threshold_pct);
  doc["alpha"] = number(r.options.alpha);
  doc["significance"] = {{"method", "Holm step-down over every judged test of every cell"},
                         {"tests", r.family_tests}};
  doc["verdict"] = r.overall == Verdict::regression ? "regression" : "no regression";
  ordered_json cells = ordered_json::array();
  for (const CellComparison& c : r.cells) {
    // Each cell's full comparison, as 'xttcp compare --json' writes one.
    ordered_json one = ordered_json::parse(render_compare_json(c.report));
    ordered_json family_p = ordered_json::object();
    for (size_t i = 0; i < c.family_p.size(); ++i)
      if (c.family_p[i])
        family_p[c.report.comparison.metrics[i].metric->key] = number(*c.family_p[i]);
    ordered_json entry = {{"id", c.cell.id()},
                          {"label", c.cell.label()},
                          {"verdict", to_string(c.report.comparison.overall)},
                          {"worse_by_pct", number(c.worse_by_pct)},
                          {"holm_p", std::move(family_p)},
                          {"comparison", std::move(one)}};
    cells.push_back(std::move(entry));
  }
  doc["cells"] = std::move(cells);
  ordered_json unmatched = ordered_json::array();
  for (const UnmatchedCell& u : r.unmatched)
    unmatched.push_back({{"id", u.cell.id()}, {"label", u.cell.label()}, {"why", u.why}});
  doc["not_judged"] = std::move(unmatched);
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace xttcp
