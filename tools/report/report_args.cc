#include "tools/report/report_args.hh"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace xttcp {

namespace {

// The value after `option`, or an error naming it.
Expected<std::string> value_of(const std::vector<std::string>& args, size_t& i,
                               const std::string& option, const char* what) {
  if (i + 1 >= args.size() || args[i + 1].empty())
    return fail("report: " + option + " needs " + what);
  return args[++i];
}

}  // namespace

Expected<ReportRequest> parse_report_args(const std::vector<std::string>& args) {
  ReportRequest request;
  bool has_output = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word == "-o" || word == "--output") {
      auto value = value_of(args, i, word, "a file name (the HTML page)");
      if (!value) return value.error();
      request.output = *value;
      has_output = true;
    } else if (word == "--title") {
      auto value = value_of(args, i, word, "a text");
      if (!value) return value.error();
      request.title = *value;
    } else if (word == "--threshold") {
      auto value = value_of(args, i, word, "a percentage");
      if (!value) return value.error();
      errno = 0;
      char* end = nullptr;
      const double pct = std::strtod(value->c_str(), &end);
      if (errno != 0 || *end != '\0' || !std::isfinite(pct) || pct < 0 || pct > 1000)
        return fail("report: --threshold '" + *value + "' is not a percentage from 0 to 1000");
      request.threshold_pct = pct;
    } else if (word == "--time-limit") {
      auto value = value_of(args, i, word, "a number of seconds");
      if (!value) return value.error();
      errno = 0;
      char* end = nullptr;
      const unsigned long seconds = std::strtoul(value->c_str(), &end, 10);
      if (errno != 0 || *end != '\0' || (*value)[0] == '-' || seconds < 1 || seconds > 86400)
        return fail("report: --time-limit '" + *value +
                    "' is not a whole number of seconds from 1 to 86400");
      request.time_limit_s = static_cast<unsigned>(seconds);
    } else if (word.size() > 1 && word[0] == '-') {
      return fail("report: unknown option '" + word +
                  "' (known: -o, --title, --threshold, --time-limit)");
    } else {
      request.files.push_back(word);
    }
  }
  if (request.files.empty())
    return fail("report: needs at least one result file (written by --json)");
  if (!has_output) return fail("report: -o FILE is required (the HTML page)");
  return request;
}

std::string report_help() {
  return "xttcp report FILE.json... -o PAGE.html [--title TEXT] [--threshold PCT]\n"
         "             [--time-limit SEC]\n"
         "  One self-contained HTML page of result files (--json output; one run or a\n"
         "  --repeat set each): throughput per interval for both ends, the spread over\n"
         "  threads, connections and device queues, the CPU split, TCP_INFO per connection.\n"
         "  With two files or more, each is compared with the first (xttcp compare): the\n"
         "  verdict table and every metric's runs side by side. Plots by matplotlib\n"
         "  (python3-matplotlib); the page needs no network. The files are checked as\n"
         "  compare checks them. Sweeps (xttcp sweep --json; every file one) get a verdict per\n"
         "  cell, a heatmap of each cell's change per metric, curves against connections and\n"
         "  size with base and new on the same axes, and each cell's comparison on demand.\n"
         "  The page's generator gets --time-limit seconds (default\n"
         "  120, 60 more per file after the first, 1 more per sweep cell) and 2 GiB of memory.\n"
         "  Exit: 0 written, 2 usage error or an input that is not a result, 1 failure.\n";
}

}  // namespace xttcp
