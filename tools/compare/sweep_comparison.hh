// `xttcp compare` of two sweeps (docs/regression.md, "Sweeps"): each cell measured in both
// judged as two result files are (compare_sets), then the significance of all of them together
// (Holm), a table sorted by effect (the worst change of a cell's headline figure first), and every
// cell that is in one file only (not planned, failed or not reached) listed by name, never
// dropped. Pure: sweeps in, a report out.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/status.hh"
#include "engine/report/native_sweep.hh"
#include "tools/compare/compare_report.hh"

namespace xttcp {

struct CellComparison {
  SweepCell cell;
  CompareReport report;
  // The cell's headline metric (throughput; --rr: the median round trip), an index into
  // report.comparison.metrics (-1: neither side had it), and its change toward worse in per
  // cent (positive: worse), for sorting and the table.
  int headline = -1;
  double worse_by_pct = 0;
  // Per metric (report.comparison.metrics' order), its p-value adjusted for the sweep's family
  // of tests (Holm): what the verdict compares with alpha. nullopt: no test, or not judged.
  std::vector<std::optional<double>> family_p;
};

struct UnmatchedCell {
  SweepCell cell;
  std::string why;  // "only in new.json", "failed in base.json: ..."
};

struct SweepCompareReport {
  CompareSide base, changed;  // runs = cells measured
  CompareOptions options;
  std::vector<CellComparison> cells;  // worst first
  std::vector<UnmatchedCell> unmatched;
  std::vector<Difference> environment;  // of the first cell both measured
  Verdict overall = Verdict::same;      // regression if any cell regressed
  // Holm's step-down over every judged significance test of every cell, so that the chance of
  // any false alarm in the sweep stays at alpha (each cell alone would have its own alpha: with
  // 6 cells, 2 of 8 pairs of identical sweeps had one). The tests in that family.
  size_t family_tests = 0;
};

Expected<SweepCompareReport> compare_sweeps(const std::string& base_path, const Sweep& base,
                                            const std::string& new_path, const Sweep& changed,
                                            const CompareOptions& options, bool allow_different);

std::string render_sweep_compare_table(const SweepCompareReport& report);
std::string render_sweep_compare_json(const SweepCompareReport& report);

}  // namespace xttcp
