// `xttcp report`'s command line: result files in, one HTML page out (docs/regression.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/status.hh"

namespace xttcp {

struct ReportRequest {
  std::vector<std::string> files;  // --json results or --repeat sets; the first is the base
  std::string output;              // -o: the page
  std::string title = "xttcp report";
  std::optional<double> threshold_pct;  // --threshold: compare's, for the verdicts
  // --time-limit: the page's generator's time, in seconds; default 120 plus 60 per extra file.
  std::optional<unsigned> time_limit_s;
};

// Usage errors name the option and the rule: "report: -o FILE is required (the HTML page)".
Expected<ReportRequest> parse_report_args(const std::vector<std::string>& args);

std::string report_help();

}  // namespace xttcp
