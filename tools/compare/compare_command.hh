// `xttcp compare BASE.json NEW.json [options]`: reads two result files (one run or a set of
// repeated runs each), refuses different workloads, and prints the comparison. Exit codes:
// 0 no regression, 3 regression, 2 usage error or inputs that cannot be compared.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/status.hh"
#include "tools/compare/comparison.hh"

namespace xttcp {

struct CompareRequest {
  std::string base_path, new_path;
  CompareOptions options;
  std::optional<std::string> json_file;   // --json FILE ("-": stdout, instead of the table)
  bool allow_different_workload = false;  // --allow-different-workload
};

// The words after "compare". Errors are one line naming the option and the rule.
Expected<CompareRequest> parse_compare_args(const std::vector<std::string>& args);

std::string compare_help();

// Prints the table (or JSON) and returns the exit code.
int run_compare(const CompareRequest& request);

}  // namespace xttcp
