#include "tools/compare/compare_command.hh"

#include <fmt/format.h>

#include <charconv>
#include <cstdio>
#include <fstream>

#include "base/exit_codes.hh"
#include "tools/compare/compare_inputs.hh"
#include "tools/compare/compare_report.hh"
#include "tools/compare/sweep_comparison.hh"
#include "engine/report/result_file.hh"

namespace xttcp {

namespace {

Expected<double> parse_number(const std::string& option, const std::string& text, double low,
                              double high, const char* rule) {
  double value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || !(value > low && value < high))
    return fail(fmt::format("{}: '{}' is not {}", option, text, rule));
  return value;
}

int complain(const std::string& message) {
  std::fprintf(stderr, "xttcp: %s\n", message.c_str());
  return exit_code::usage;
}

}  // namespace

Expected<CompareRequest> parse_compare_args(const std::vector<std::string>& args) {
  CompareRequest request;
  std::vector<std::string> files;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    auto value = [&](const char* option) -> Expected<std::string> {
      if (i + 1 >= args.size()) return fail(fmt::format("{} needs a value", option));
      return args[++i];
    };
    if (word == "--threshold") {
      auto text = value("--threshold");
      if (!text) return text.error();
      auto pct = parse_number(word, *text, 0, 1e6, "a percentage above 0 (e.g. 5)");
      if (!pct) return pct.error();
      request.options.threshold_pct = *pct;
    } else if (word == "--alpha") {
      auto text = value("--alpha");
      if (!text) return text.error();
      auto alpha =
          parse_number(word, *text, 0, 1, "a significance level between 0 and 1 (e.g. 0.05)");
      if (!alpha) return alpha.error();
      request.options.alpha = *alpha;
    } else if (word == "--json") {
      auto file = value("--json");
      if (!file) return file.error();
      request.json_file = *file;
    } else if (word == "--judge-all" || word == "--judge-system-wide") {  // the older name
      request.options.judge_all = true;
    } else if (word == "--allow-different-workload") {
      request.allow_different_workload = true;
    } else if (word.starts_with("-") && word != "-") {
      return fail(
          fmt::format("compare: unknown option '{}' (options: --threshold PCT, --alpha P, "
                      "--json FILE, --allow-different-workload, --judge-all)",
                      word));
    } else {
      files.push_back(word);
    }
  }
  if (files.size() != 2)
    return fail(fmt::format("compare: expected two result files, BASE.json NEW.json (got {})",
                            files.size()));
  request.base_path = files[0];
  request.new_path = files[1];
  return request;
}

std::string compare_help() {
  return "xttcp compare BASE.json NEW.json [--threshold PCT] [--alpha P] [--json FILE|-]\n"
         "              [--allow-different-workload] [--judge-all]\n"
         "  Compares two result files (--json output; one run or --repeat N runs each): every\n"
         "  metric's change, its significance with repeats (Welch's t-test), a verdict against\n"
         "  --threshold (default 5 %), and what differs in the environment. Metrics that\n"
         "  other load on the host moves (cycles/byte, CPU-s/GB, retransmits/GB, --rr p99) are\n"
         "  judged only with --judge-all. Two sweeps (xttcp sweep --json) are compared cell\n"
         "  by cell: a verdict per cell (their tests significant together: Holm), worst first,\n"
         "  and the cells in one file only listed.\n"
         "  Exit: 0 no regression, 3 regression, 2 usage error or inputs that cannot be "
         "compared.\n";
}

// Two sweeps: one verdict per cell (sweep_comparison.hh).
int run_sweep_compare(const CompareRequest& request) {
  auto base = read_sweep_file(request.base_path);
  if (!base) return complain("compare: " + base.error().message);
  auto changed = read_sweep_file(request.new_path);
  if (!changed) return complain("compare: " + changed.error().message);
  auto compared = compare_sweeps(request.base_path, *base, request.new_path, *changed,
                                 request.options, request.allow_different_workload);
  if (!compared) return complain("compare: " + compared.error().message);
  if (request.json_file && *request.json_file == "-") {
    std::fputs(render_sweep_compare_json(*compared).c_str(), stdout);
  } else {
    std::fputs(render_sweep_compare_table(*compared).c_str(), stdout);
    if (request.json_file)
      if (Status written =
              write_file_atomically(*request.json_file, render_sweep_compare_json(*compared));
          !written)
        return complain("compare: --json: " + written.error().message);
  }
  return compared->overall == Verdict::regression ? exit_code::regression : exit_code::success;
}

int run_compare(const CompareRequest& request) {
  auto base_is_sweep = is_sweep_file(request.base_path);
  if (!base_is_sweep) return complain("compare: " + base_is_sweep.error().message);
  auto new_is_sweep = is_sweep_file(request.new_path);
  if (!new_is_sweep) return complain("compare: " + new_is_sweep.error().message);
  if (*base_is_sweep != *new_is_sweep)
    return complain(
        fmt::format("compare: {} is a sweep and {} is not: compare a sweep with a "
                    "sweep, or one of its cells' result files with a result file",
                    *base_is_sweep ? request.base_path : request.new_path,
                    *base_is_sweep ? request.new_path : request.base_path));
  if (*base_is_sweep) return run_sweep_compare(request);
  auto base = read_result_file(request.base_path);
  if (!base) return complain("compare: " + base.error().message);
  auto changed = read_result_file(request.new_path);
  if (!changed) return complain("compare: " + changed.error().message);
  auto compared = compare_sets({request.base_path, &*base}, {request.new_path, &*changed},
                               request.options, request.allow_different_workload);
  if (!compared) return complain("compare: " + compared.error().message);
  const CompareReport& report = *compared;

  if (request.json_file && *request.json_file == "-") {
    std::fputs(render_compare_json(report).c_str(), stdout);
  } else {
    std::fputs(render_compare_table(report).c_str(), stdout);
    if (request.json_file) {
      std::ofstream out(*request.json_file, std::ios::binary | std::ios::trunc);
      out << render_compare_json(report);
      if (!out.flush())
        return complain(fmt::format("--json: cannot write '{}'", *request.json_file));
    }
  }
  return report.comparison.overall == Verdict::regression ? exit_code::regression
                                                          : exit_code::success;
}

}  // namespace xttcp
