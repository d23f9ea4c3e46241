// calibrate's run: each shape's process pairs on loopback (compare-paths' measure_paths), the
// choice per shape, and the record written whole.
#include "tools/paths/calibrate_command.hh"

#include <chrono>
#include <cstdio>
#include <variant>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "base/exit_codes.hh"
#include "io_backends/registry.hh"
#include "tools/paths/auto_store.hh"
#include "tools/paths/paths_command.hh"
#include "tools/paths/process_pair.hh"
#include "tools/run_command.hh"
#include "tools/version_text.hh"

namespace xttcp {

namespace {

// Rounds calibrate adds to a shape whose runs still overlap, beyond --repeat.
constexpr uint32_t calibrate_extra_rounds = 2;
// Seconds each run goes before its window: a test is mostly steady state, and the first second
// is not (Xeon model 167, 64 connections: io_uring 67-95 Gbit/s in its first second, 61-64
// after, epoll 76-81 throughout; windows of that second alone chose io_uring, 0.84x epoll at 3 s).
constexpr uint32_t calibrate_warmup_s = 1;

std::string today_utc() {
  return fmt::format(
      "{:%Y-%m-%d}",
      fmt::gmtime(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now())));
}

// The data paths auto may take and calibrate measures: the kernel-socket ones available here.
std::vector<std::string> measurable_backends() {
  std::vector<std::string> names;
  for (const char* name : {"epoll", "io_uring"})
    if (find_backend(name)) names.emplace_back(name);
  return names;
}

// Each row's medians and the range of its runs.
std::vector<MeasuredPath> measured_paths(const PathTable& table) {
  std::vector<MeasuredPath> paths;
  for (const PathRow& row : table.rows)
    paths.push_back({row.backend, row.throughput_gbps.median, row.cpu_s_per_gb.median,
                     row.throughput_gbps.min, row.throughput_gbps.max,
                     static_cast<uint32_t>(row.runs.size())});
  return paths;
}

// A further round's runs joined to the table's rows (same backends, same order).
void add_runs(PathTable& table, const PathTable& more) {
  for (size_t i = 0; i < table.rows.size() && i < more.rows.size(); ++i)
    table.rows[i].runs.insert(table.rows[i].runs.end(), more.rows[i].runs.begin(),
                              more.rows[i].runs.end());
  table.notes.insert(table.notes.end(), more.notes.begin(), more.notes.end());
  summarize_rows(table);
}

void print_entry(const AutoEntry& entry) {
  for (const MeasuredPath& p : entry.paths)
    std::printf("  %-9s %8.2f Gbit/s (%.2f-%.2f in %u runs)  %6.3f CPU-s/GB\n", p.backend.c_str(),
                p.throughput_gbps, p.throughput_min_gbps, p.throughput_max_gbps, p.runs,
                p.cpu_s_per_gb);
  std::printf("  auto takes %s\n", auto_reason(entry).c_str());
}

int show(const std::string& path, const HostIdentity& identity) {
  auto entries = load_auto_record(path);
  if (!entries)
    return command_error("calibrate: " + entries.error().message, exit_code::run_failed);
  bool any = false;
  for (const WorkloadShape& shape : calibrated_shapes()) {
    const AutoEntry* entry = find_auto_entry(*entries, identity, shape);
    std::printf("%s:\n", shape_words(shape).c_str());
    if (entry == nullptr) {
      std::printf("  not measured on this host, kernel and build: auto takes its rule\n");
      continue;
    }
    any = true;
    print_entry(*entry);
  }
  std::printf("record: %s%s\n", path.c_str(), any ? "" : " (nothing for this host)");
  return exit_code::success;
}

}  // namespace

int run_calibrate(const CalibrateRequest& request) {
  const std::string path = auto_record_path();
  if (path.empty())
    return command_error(
        "calibrate: no cache directory to keep the record in (set HOME or XDG_CACHE_HOME)",
        exit_code::run_failed);
  const HostIdentity identity = this_host_identity(build_identity());
  if (request.show_only) return show(path, identity);
  if (Status pairs = can_run_pairs(); !pairs)
    return command_error("calibrate: " + pairs.error().message, exit_code::run_failed);
  if (Status writable = prepare_auto_record(path); !writable)
    return command_error("calibrate: " + writable.error().message, exit_code::run_failed);
  // Read first: a damaged record is said now, not after the runs (it is then replaced).
  auto entries = load_auto_record(path);
  if (!entries) {
    std::fprintf(stderr, "xttcp: calibrate: %s: replaced by this calibration\n",
                 entries.error().message.c_str());
    entries = std::vector<AutoEntry>{};
  }
  const std::vector<std::string> names = measurable_backends();
  if (names.empty())
    return command_error(
        "calibrate: neither epoll nor io_uring is available here: nothing to choose",
        exit_code::run_failed);
  const std::string date = today_utc();
  for (const WorkloadShape& shape : calibrated_shapes()) {
    PathsRequest paths;  // to 127.0.0.1: calibrate never sends anywhere else
    PathWorkload& w = paths.workload;
    w.ports = shape_ports(shape);
    w.threads_per_port = shape_threads_per_port(shape);
    w.seconds = request.seconds;
    w.warmup_s = calibrate_warmup_s;
    w.repeat = request.repeat;
    w.receive_copy = shape.receive_copy;
    auto outcome = measure_paths(paths, names, "calibrate");
    if (auto* failed = std::get_if<PathsFailure>(&outcome))
      return command_error(failed->message, failed->exit_code);
    PathTable& table = std::get<MeasuredPaths>(outcome).table;
    // Runs that overlap are a tie so far: more rounds may separate them (a bounded number; what
    // still overlaps then is a tie that CPU-s/GB settles).
    for (uint32_t extra = 0;
         extra < calibrate_extra_rounds && !throughput_decides(measured_paths(table)); ++extra) {
      std::fprintf(stderr, "calibrate: %s: the runs overlap: one more round\n",
                   shape_words(shape).c_str());
      PathsRequest one_more = paths;
      one_more.workload.repeat = 1;
      auto more = measure_paths(one_more, names, "calibrate");
      if (auto* failed = std::get_if<PathsFailure>(&more))
        return command_error(failed->message, failed->exit_code);
      add_runs(table, std::get<MeasuredPaths>(more).table);
    }
    AutoEntry entry;
    entry.identity = identity;
    entry.shape = shape_key(shape);
    entry.measured_on = date;
    entry.seconds = request.seconds;
    entry.paths = measured_paths(table);
    entry.chosen = choose_measured(entry.paths);
    if (entry.chosen.empty())
      return command_error(
          fmt::format("calibrate: {}: no data path moved any data", shape_words(shape)),
          exit_code::run_failed);
    std::printf("%s:\n", shape_words(shape).c_str());
    print_entry(entry);
    // A busy machine measures its load, not the paths: said beside the figures.
    for (const std::string& note : table.notes) std::printf("  %s\n", note.c_str());
    put_auto_entry(*entries, std::move(entry));
  }
  if (Status saved = save_auto_record(path, *entries); !saved)
    return command_error("calibrate: " + saved.error().message, exit_code::run_failed);
  std::printf("recorded in %s (CPU: %s)\n", path.c_str(), identity.cpu_model.c_str());
  return exit_code::success;
}

}  // namespace xttcp
