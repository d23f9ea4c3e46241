// The two forms of a comparison: the table a person reads and the JSON a pipeline reads
// (schema "xttcp-compare", docs/regression.md).
#pragma once

#include <string>
#include <vector>

#include "tools/compare/comparison.hh"
#include "tools/compare/differences.hh"

namespace xttcp {

struct CompareSide {
  std::string path;
  size_t runs = 0;
};

struct CompareReport {
  CompareSide base, changed;
  CompareOptions options;
  Comparison comparison;
  std::vector<Difference> workload;  // non-empty only when allowed (--allow-different-workload)
  std::vector<Difference> environment;
};

std::string render_compare_table(const CompareReport& report);
std::string render_compare_json(const CompareReport& report);

}  // namespace xttcp
