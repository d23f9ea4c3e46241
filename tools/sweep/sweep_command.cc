// `xttcp sweep`: each planned cell as a sender process of this program (its console in a
// scratch directory, its runs read back from its --json), progress on stderr, and the sweep file
// rewritten after every cell so that what finished is never lost.
#include "tools/sweep/sweep_command.hh"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/exit_codes.hh"
#include "engine/analysis/run_set_statistics.hh"
#include "engine/report/result_file.hh"
#include "io_backends/registry.hh"
#include "tools/compare/compare_inputs.hh"
#include "tools/scratch_dir.hh"
#include "tools/sweep/cell_process.hh"

namespace xttcp {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Cells in a row that fail before the sweep gives up: the receiver is gone or refuses them all.
constexpr int max_failures_in_a_row = 3;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Why a cell's sender failed: its last error line ("ERR : ..." or "xttcp: ..."), else its
// last line.
std::string reason_of(const fs::path& out, const fs::path& err) {
  std::string last, last_error;
  for (const fs::path& path : {out, err}) {
    std::istringstream lines(read_text(path));
    std::string line;
    while (std::getline(lines, line)) {
      if (line.empty()) continue;
      last = line;
      if (line.find("ERR") != std::string::npos || line.rfind("xttcp:", 0) == 0) last_error = line;
    }
  }
  std::string why = last_error.empty() ? last : last_error;
  return why.substr(0, 400);
}

std::string clock_text(double seconds) {
  const auto s = static_cast<long>(seconds + 0.5);
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
                   : fmt::format("{}:{:02}", s / 60, s % 60);
}

// What one cell costs at least: its tests (warm-up, window, cool-down) and the pauses between.
double planned_seconds(const SweepRequest& request) {
  const TestSpec& s = request.shared;
  const double test = double(s.workload.warmup_s) + s.workload.duration_s + s.workload.cooldown_s;
  const uint32_t n = std::max<uint32_t>(1, s.repeat.count);
  return test * n + s.repeat.pause_s * (n - 1);
}

// "throughput 12.34 Gbit/s (median of 3 runs, cv 1.2 %)"; for --rr the median round trip.
std::string cell_summary(CellKind kind, const RunSet& set) {
  const std::string headline = headline_metric(kind);
  for (const MetricStatistics& m : run_set_statistics(set.runs)) {
    if (m.metric->key != headline) continue;
    return fmt::format("{} {:.2f} {} (median of {} run{}, cv {:.1f} %)", m.metric->label,
                       m.summary.median, m.metric->unit, m.summary.n, m.summary.n == 1 ? "" : "s",
                       m.summary.cv * 100);
  }
  return fmt::format("{} runs", set.runs.size());
}

// The sweep file, whole or not at all, and never larger than `compare` and `report` read.
Status write_sweep(const std::string& path, const Sweep& sweep) {
  const std::string text = render_native_sweep(sweep);
  if (text.size() > native_runs_max_bytes)
    return fail(
        fmt::format("sweep: {} would hold {} MiB after {} cells, more than compare reads "
                    "({} MiB): run fewer cells or runs per file",
                    path, text.size() >> 20, sweep.cells.size(), native_runs_max_bytes >> 20));
  if (Status written = write_file_atomically(path, text); !written)
    return fail("sweep: " + written.error().message);
  return ok();
}

std::string joined(const std::vector<std::string>& words) {
  std::string line;
  for (const std::string& word : words) line += (line.empty() ? "" : " ") + word;
  return line;
}

}  // namespace

int run_sweep(const SweepRequest& request) {
  const auto complain = [](const std::string& message, int code) {
    std::fprintf(stderr, "xttcp: %s\n", message.c_str());
    return code;
  };
  if (Status can = can_run_cells(); !can) return complain(can.error().message, exit_code::usage);
  // A data path this build or host lacks fails every cell on it: said before anything runs.
  for (const std::string& name : request.axes.backends)
    if (name != auto_backend)
      if (auto found = find_backend(name); !found)
        return complain("sweep: --backends: " + found.error().message, exit_code::usage);
  if (Status writable = check_result_path(request.json_file, "--json"); !writable)
    return complain("sweep: " + writable.error().message, exit_code::usage);
  auto dir = make_scratch_dir("sweep");
  if (!dir) return complain(dir.error().message, exit_code::run_failed);
  const ScratchDirRemoval cleanup{*dir};
  watch_cell_interrupts();

  Sweep sweep;
  sweep.sender_args = joined(request.shared_args);
  sweep.repeat = std::max<uint32_t>(1, request.shared.repeat.count);
  sweep.plan = request.cells;
  const size_t total = request.cells.size();
  const double per_cell = planned_seconds(request);
  // Each sender is bounded: its tests, and room for connecting, the sync and the results.
  const double cell_timeout = per_cell + 120;
  const auto started = Clock::now();
  double spent_on_cells = 0;
  int failed = 0, failed_in_a_row = 0;
  std::fprintf(stderr, "sweep: %zu cells of about %s each, %u run%s per cell; results in %s\n",
               total, clock_text(per_cell).c_str(), sweep.repeat, sweep.repeat == 1 ? "" : "s",
               request.json_file.c_str());
  for (size_t k = 0; k < total && !cell_interrupted(); ++k) {
    const SweepCell& cell = request.cells[k];
    const double elapsed = std::chrono::duration<double>(Clock::now() - started).count();
    // Measured cells say what a cell really takes here; before the first, the plan does.
    const double each = k == 0 ? per_cell : spent_on_cells / double(k);
    std::fprintf(stderr, "sweep: cell %zu of %zu: %s (elapsed %s, about %s left)\n", k + 1, total,
                 cell.label().c_str(), clock_text(elapsed).c_str(),
                 clock_text(each * double(total - k)).c_str());
    const fs::path out = *dir / fmt::format("cell-{}.out", k + 1);
    const fs::path err = *dir / fmt::format("cell-{}.err", k + 1);
    const fs::path json = *dir / fmt::format("cell-{}.json", k + 1);
    CellCommand command;
    command.args = cell_args(request, cell);
    command.args.insert(command.args.end(), {"--json", json.string()});
    command.out_path = out.string();
    command.err_path = err.string();
    command.timeout_s = cell_timeout;
    const auto cell_started = Clock::now();
    auto exit = run_cell(command);
    if (!exit) return complain(exit.error().message, exit_code::run_failed);
    const double took = std::chrono::duration<double>(Clock::now() - cell_started).count();
    spent_on_cells += took;
    if (cell_interrupted()) {
      std::fprintf(stderr, "sweep: cell %zu of %zu interrupted: not kept\n", k + 1, total);
      break;
    }
    // A sender that refused its options (exit 2: e.g. more connections than this host's open
    // files allow) is that cell's failure, like any other: the cells after it may well run.
    SweepCellResult result;
    result.cell = cell;
    result.seconds = took;
    Expected<RunSet> runs = exit->code == exit_code::success
                                ? read_result_file(json.string())
                                : Expected<RunSet>(fail(std::string()));
    if (runs) {
      result.runs = std::move(*runs);
      failed_in_a_row = 0;
      std::fprintf(stderr, "sweep: cell %zu of %zu: %s\n", k + 1, total,
                   cell_summary(cell.kind, result.runs).c_str());
    } else {
      result.outcome = CellOutcome::failed;
      result.error = exit->timed_out
                         ? fmt::format("did not finish in {:.0f} s: killed", cell_timeout)
                     : !runs.error().message.empty() ? runs.error().message
                                                     : reason_of(out, err);
      ++failed;
      ++failed_in_a_row;
      std::fprintf(stderr, "sweep: cell %zu of %zu failed: %s\n", k + 1, total,
                   result.error.c_str());
    }
    sweep.cells.push_back(std::move(result));
    const bool giving_up = failed_in_a_row == max_failures_in_a_row && k + 1 < total;
    sweep.interrupted = giving_up;  // the file says it stopped short, not that it is whole
    if (Status written = write_sweep(request.json_file, sweep); !written)
      return complain(written.error().message, exit_code::run_failed);
    if (giving_up)
      return complain(fmt::format("sweep: {} cells in a row failed: stopping ({} holds the {} "
                                  "that ran)",
                                  max_failures_in_a_row, request.json_file, sweep.cells.size()),
                      exit_code::run_failed);
  }
  const double elapsed = std::chrono::duration<double>(Clock::now() - started).count();
  if (sweep.cells.size() < total) {
    sweep.interrupted = true;
    if (Status written = write_sweep(request.json_file, sweep); !written)
      return complain(written.error().message, exit_code::run_failed);
    return complain(fmt::format("sweep: interrupted after {} of {} cells in {}; {} holds them",
                                sweep.cells.size(), total, clock_text(elapsed), request.json_file),
                    exit_code::run_failed);
  }
  if (failed > 0)
    return complain(fmt::format("sweep: {} of {} cells failed (in {}); {} holds every cell", failed,
                                total, clock_text(elapsed), request.json_file),
                    exit_code::run_failed);
  std::fprintf(stderr, "sweep: %zu cells measured in %s; %s holds them\n", total,
               clock_text(elapsed).c_str(), request.json_file.c_str());
  return exit_code::success;
}

}  // namespace xttcp
