// `xttcp compare-paths [options]` (docs/compare-paths.md): one workload, stream or --rr, TCP or
// UDP, run on each backend in turn as a receiver and sender process pair (on loopback, or between
// two network namespaces), the
// backends alternating and the round repeated; prints one table with ratios against epoll.
// Exit codes: 0 every run completed, 1 a run failed (its output is shown), 2 usage.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "base/status.hh"
#include "engine/report/native_runs.hh"
#include "tools/paths/path_table.hh"

namespace xttcp {

struct PathsRequest {
  PathWorkload workload;
  std::vector<std::string> backends;     // --backends; empty: epoll and io_uring if available
  std::optional<std::string> json_file;  // --json FILE ("-": stdout, instead of the table)
  std::optional<std::string> runs_dir;   // --runs-dir DIR: DIR/<backend>.json, xttcp-runs
  uint32_t port = 0;                     // -p; 0: a free block found at run time
  // Where the pair runs: the receiver's address (--to) and the sender's (--from, its -a), each
  // end in a network namespace of its own (--netns RECV,SEND; "" = this one).
  std::string to = "127.0.0.1", from;
  std::string receiver_netns, sender_netns;
  // --receiver-dpdk-args, --sender-dpdk-args: each dpdk end's EAL arguments (its port).
  std::string receiver_dpdk_args, sender_dpdk_args;
};

// The words after "compare-paths". Errors are one line naming the option and the rule.
Expected<PathsRequest> parse_paths_args(const std::vector<std::string>& args);

std::string paths_help();

// Runs every pair, prints the table (or JSON) and returns the exit code.
int run_paths(const PathsRequest& request);

// The rounds of `request`'s workload on each of `names` (process pairs, each sender's result
// read back): the summarized table and every backend's runs, or the failure (its message, and
// the exit code: 2 when a process refused its options). `who` starts each progress line on
// stderr and each message ("compare-paths", "calibrate").
struct MeasuredPaths {
  PathTable table;
  std::vector<RunSet> sets;  // per backend, in `names`' order
};
struct PathsFailure {
  std::string message;
  int exit_code = 1;
};
std::variant<MeasuredPaths, PathsFailure> measure_paths(const PathsRequest& request,
                                                        const std::vector<std::string>& names,
                                                        const char* who);

}  // namespace xttcp
