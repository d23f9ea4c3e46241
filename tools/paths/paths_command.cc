// compare-paths' run: the rounds of process pairs, their results read back, the table printed.
#include "tools/paths/paths_command.hh"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <variant>

#include "base/exit_codes.hh"
#include "base/read_file.hh"
#include "engine/report/native_json.hh"
#include "engine/report/native_runs.hh"
#include "io_backends/registry.hh"
#include "tools/paths/process_pair.hh"
#include "tools/run_command.hh"
#include "tools/scratch_dir.hh"

namespace xttcp {

namespace {

namespace fs = std::filesystem;

// The spec a sender of this workload would run, to ask each backend before anything starts.
TestSpec sender_spec(const PathWorkload& w, const std::string& backend) {
  TestSpec spec;
  spec.role = Role::sender;
  spec.backend = backend;
  spec.workload.protocol = w.protocol;
  spec.rr.on = w.rr;
  spec.rr.depth = w.depth;
  spec.layout.ports = w.ports;
  spec.layout.threads_per_port = w.threads_per_port;
  return spec;
}

// The options both ends share, then each end's own.
std::vector<std::string> common_args(const PathWorkload& w, const std::string& backend,
                                     uint16_t port) {
  std::vector<std::string> args{"--backend", backend,
                                "-p",        std::to_string(port),
                                "-P",        std::to_string(w.ports),
                                "-t",        fmt::format("{:g}", w.seconds)};
  if (w.warmup_s > 0) args.insert(args.end(), {"-W", std::to_string(w.warmup_s)});
  if (w.protocol == Protocol::udp) args.push_back("-u");
  if (w.buffer_bytes > 0) args.insert(args.end(), {"-b", std::to_string(w.buffer_bytes)});
  if (w.rr) {
    args.push_back("--rr");
    if (w.response_bytes > 0)
      args.insert(args.end(), {"--response-size", std::to_string(w.response_bytes)});
  }
  return args;
}

Expected<Result> read_result(const std::string& path) {
  Expected<std::string> text = read_whole_file(path);
  if (!text) return fail(fmt::format("compare-paths: the sender wrote no result file '{}'", path));
  auto result = parse_native_json(*text);
  if (!result) return fail(fmt::format("compare-paths: {}: {}", path, result.error().message));
  return result;
}

// The backends to run: those asked for, each available and accepting the workload; or by
// default epoll and io_uring where they are available. The baseline, epoll, runs first.
Expected<std::vector<std::string>> backends_to_run(const PathsRequest& request) {
  std::vector<std::string> names = request.backends;
  if (names.empty()) {
    for (const char* name : {"epoll", "io_uring"})
      if (find_backend(name)) names.emplace_back(name);
    if (names.empty())
      return fail(
          "compare-paths: neither epoll nor io_uring is available here: name the "
          "backends to compare with --backends");
  }
  for (const std::string& name : names) {
    auto chosen = choose_backend(sender_spec(request.workload, name));
    if (!chosen) return fail(fmt::format("compare-paths: --backends: {}", chosen.error().message));
  }
  return names;
}

Status write_file(const std::string& path, const std::string& text, const char* option) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out.flush()) return fail(fmt::format("compare-paths: {}: cannot write '{}'", option, path));
  return ok();
}

}  // namespace

std::variant<MeasuredPaths, PathsFailure> measure_paths(const PathsRequest& request,
                                                        const std::vector<std::string>& names,
                                                        const char* who) {
  auto dir = make_scratch_dir(who);
  if (!dir) return PathsFailure{dir.error().message, exit_code::run_failed};
  const ScratchDirRemoval cleanup{*dir};

  MeasuredPaths measured;
  PathTable& table = measured.table;
  table.workload = request.workload;
  table.unit = cycle_unit_of(request.workload);
  for (const std::string& name : names) {
    table.rows.emplace_back();
    table.rows.back().backend = name;
  }
  measured.sets.resize(names.size());
  const std::string load_before = machine_load();
  const PathWorkload& w = request.workload;
  const double timeout_s = w.warmup_s + w.seconds + 60;
  for (uint32_t round = 1; round <= w.repeat; ++round) {
    for (size_t b = 0; b < names.size(); ++b) {
      const std::string& name = names[b];
      std::fprintf(stderr, "%s: round %u of %u: %s\n", who, round, w.repeat, name.c_str());
      auto port =
          request.port != 0 ? Expected<uint16_t>(request.port) : free_port_block(w.ports + 1);
      if (!port) return PathsFailure{port.error().message, exit_code::run_failed};
      const fs::path run_dir = *dir / fmt::format("{}-{}", name, round);
      fs::create_directory(run_dir);
      const std::string result_file = (run_dir / "sender.json").string();
      PairCommand pair;
      pair.log_dir = run_dir.string();
      pair.ready_port = static_cast<uint16_t>(*port - 1);
      pair.timeout_s = timeout_s;
      const auto common = common_args(w, name, *port);
      pair.receiver_netns = request.receiver_netns;
      pair.sender_netns = request.sender_netns;
      pair.receiver_args = {"-r", request.to, "--wait-timeout", "30"};
      if (w.receive_copy) pair.receiver_args.emplace_back("--skip-rx-copy=off");
      pair.receiver_args.insert(pair.receiver_args.end(), common.begin(), common.end());
      pair.sender_args = {"-s",     request.to, "-n", std::to_string(w.threads_per_port),
                          "--json", result_file};
      if (!request.from.empty())
        pair.sender_args.insert(pair.sender_args.end(), {"-a", request.from});
      if (name == "dpdk") {
        pair.receiver_args.insert(pair.receiver_args.end(),
                                  {"--dpdk-args", request.receiver_dpdk_args});
        pair.sender_args.insert(pair.sender_args.end(), {"--dpdk-args", request.sender_dpdk_args});
      }
      if (w.rr)
        pair.sender_args.insert(pair.sender_args.end(), {"--rr-depth", std::to_string(w.depth)});
      pair.sender_args.insert(pair.sender_args.end(), common.begin(), common.end());
      if (auto failed = run_process_pair(pair)) {
        // The scratch directory goes at the end: show the failing process's output now.
        std::ifstream err(
            run_dir / (failed->message.find("the sender") == 0 ? "sender.err" : "receiver.err"));
        std::fprintf(stderr, "%s", std::string(std::istreambuf_iterator<char>(err), {}).c_str());
        return PathsFailure{fmt::format("{}: {} (round {}): {}", who, name, round, failed->message),
                            failed->usage ? exit_code::usage : exit_code::run_failed};
      }
      auto result = read_result(result_file);
      if (!result) return PathsFailure{result.error().message, exit_code::run_failed};
      if (table.cpu_model.empty()) {
        table.tool_version = result->tool_version;
        table.cpu_model = result->host.cpu_model;
        table.cpus = result->host.cpu_cores;
        table.clock_mhz = result->host.cpu_mhz;
        table.clock_source = "the first \"cpu MHz\" of /proc/cpuinfo";
        table.workload.buffer_bytes = result->spec.workload.send_buffer;
        if (w.rr && result->rr) table.workload.response_bytes = result->rr->response_bytes;
      }
      table.rows[b].runs.push_back(path_run_from_result(*result, table.unit, table.clock_mhz));
      if (!table.rows[b].runs.back().peer_cpu)
        table.notes.push_back(
            fmt::format("{} round {}: the receiver shared no result; its CPU "
                        "is not in the figures",
                        name, round));
      measured.sets[b].runs.push_back(std::move(*result));
    }
  }
  if (!load_before.empty())
    table.notes.push_back(
        fmt::format("machine load: {} before, {} after (other processes share "
                    "the CPUs: compare rows of one run, not across runs)",
                    load_before, machine_load()));
  summarize_rows(table);
  return measured;
}

int run_paths(const PathsRequest& request) {
  if (Status pairs = can_run_pairs(); !pairs)
    return command_error(pairs.error().message, exit_code::usage);
  auto names = backends_to_run(request);
  if (!names) return command_error(names.error().message, exit_code::usage);
  if (request.runs_dir) {
    std::error_code ec;
    if (!fs::is_directory(*request.runs_dir, ec))
      return command_error(
          fmt::format("compare-paths: --runs-dir: '{}' is not a directory", *request.runs_dir),
          exit_code::usage);
  }
  auto outcome = measure_paths(request, *names, "compare-paths");
  if (auto* failed = std::get_if<PathsFailure>(&outcome))
    return command_error(failed->message, failed->exit_code);
  auto& [table, sets] = std::get<MeasuredPaths>(outcome);

  if (request.runs_dir)
    for (size_t b = 0; b < names->size(); ++b)
      if (Status written =
              write_file((fs::path(*request.runs_dir) / ((*names)[b] + ".json")).string(),
                         render_native_runs(sets[b]), "--runs-dir");
          !written)
        return command_error(written.error().message, exit_code::run_failed);
  if (request.json_file && *request.json_file == "-") {
    std::fputs(render_paths_json(table).c_str(), stdout);
    return exit_code::success;
  }
  std::fputs(render_paths_table(table).c_str(), stdout);
  if (request.json_file)
    if (Status written = write_file(*request.json_file, render_paths_json(table), "--json");
        !written)
      return command_error(written.error().message, exit_code::run_failed);
  return exit_code::success;
}

}  // namespace xttcp
