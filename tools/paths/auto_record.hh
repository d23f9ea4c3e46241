// What `--backend auto` learned on this host (docs/data-paths.md, "How auto chooses"): `xttcp
// calibrate` measures each kernel-socket data path on loopback for a few workload shapes and
// records, per shape, the one that moved the most bytes (the highest median); only a path whose
// runs overlap the fastest's and whose median is within 5 % of it (the margin auto is held to)
// is as fast, and then the cheaper in CPU-s/GB is recorded. A later run whose shape was measured on
// the same host, kernel, CPU and xttcp build takes that one and says why. The record is a small
// JSON file in the user's cache directory that a user may read and delete. Pure: text in, decisions
// out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.hh"
#include "engine/spec.hh"

namespace xttcp {

inline constexpr const char* auto_record_schema_name = "xttcp-auto-backend";
// 2: each path's run range and count; 3: a tie needs medians within auto_tie_margin (a version 2
// record's choice may be one this rule does not make: calibrate again).
inline constexpr int auto_record_schema_version = 3;
// The record is read whole: anything larger, or with more entries, is not ours to trust.
inline constexpr std::size_t auto_record_max_bytes = 256 * 1024;
inline constexpr std::size_t auto_record_max_entries = 64;
inline constexpr std::size_t auto_record_max_backends = 8;
inline constexpr uint32_t auto_record_max_runs = 100;

// Where a measurement holds: a new kernel, CPU (a VM moved) or xttcp build measures again.
struct HostIdentity {
  std::string host, kernel, cpu_model, xttcp;
  bool operator==(const HostIdentity&) const = default;
};

// The workload shapes calibrate measures: TCP streams, one connection or many, with the
// receive copy skipped (the default) or done (--skip-rx-copy=off, the peers' work).
struct WorkloadShape {
  bool many_connections = false;
  bool receive_copy = false;
  bool operator==(const WorkloadShape&) const = default;
};
std::string shape_key(const WorkloadShape& shape);    // "tcp/1/no-copy", "tcp/many/copy"
std::string shape_words(const WorkloadShape& shape);  // "1 TCP connection, no receive copy"
// The connections calibrate runs for a shape: 1, or 64 (8 ports x 8 threads).
uint32_t shape_ports(const WorkloadShape& shape);
uint32_t shape_threads_per_port(const WorkloadShape& shape);
// Every shape calibrate measures, in its order.
std::vector<WorkloadShape> calibrated_shapes();

// The shape of a run, or nullopt where no measurement applies (UDP, --rr, dpdk-only options):
// there auto takes its rule. A sender (or --local) counts its connections; a receiver, which
// learns them only from its sender, counts its -P ports.
std::optional<WorkloadShape> shape_of(const TestSpec& spec);

struct MeasuredPath {
  std::string backend;
  double throughput_gbps = 0;  // the median run
  double cpu_s_per_gb = 0;     // both processes' CPU over the bytes moved (median run)
  double throughput_min_gbps = 0, throughput_max_gbps = 0;  // the slowest and fastest run
  uint32_t runs = 0;
};

// `faster` beat `slower` in every run: its slowest run moved more than the other's fastest,
// over at least two runs each (one run says nothing of the spread). Anything less is within
// the spread of this machine's runs, not a finding.
bool outran(const MeasuredPath& faster, const MeasuredPath& slower);

struct AutoEntry {
  HostIdentity identity;
  std::string shape;        // shape_key()
  std::string measured_on;  // UTC date, "2026-12-06"
  double seconds = 0;       // -t of each run
  std::vector<MeasuredPath> paths;
  std::string chosen;
};

// How far below the fastest median a path may be and still be as fast: the margin `--backend
// auto` is held to (issue 30: within 5 % of the best path). Runs that overlap are not enough:
// on the Xeon model 167, 64 connections' runs overlapped with medians 6 % apart; called a tie,
// the cheaper in CPU was taken and ran at 0.69x the best in a 3-s check.
inline constexpr double auto_tie_margin = 0.05;

// `p` is as fast as `fastest`: not outrun by it, and its median within auto_tie_margin.
bool as_fast(const MeasuredPath& p, const MeasuredPath& fastest);

// The path to take from measurements: the one with the highest median throughput, unless
// another is as fast (as_fast: a tie), and then, among the tied, the lowest CPU-s/GB. Empty
// when nothing moved data.
std::string choose_measured(const std::vector<MeasuredPath>& paths);

// Whether the measurement decides by throughput (the fastest outran the rest); false while
// some runs overlap, and calibrate measures more rounds before it accepts the overlap.
bool throughput_decides(const std::vector<MeasuredPath>& paths);

// The console's and the result's reason, e.g. "io_uring: 1.15x epoll's throughput, faster in
// every one of 3 runs, for 1 TCP connection, no receive copy, measured on this host on
// 2026-12-06 ('xttcp calibrate' measures again)".
std::string auto_reason(const AutoEntry& entry);

// The entry for `identity` and `shape`, if the record has one.
const AutoEntry* find_auto_entry(const std::vector<AutoEntry>& entries,
                                 const HostIdentity& identity, const WorkloadShape& shape);
// Replaces the entry of the same identity and shape, or adds it; the oldest go past the bound.
void put_auto_entry(std::vector<AutoEntry>& entries, AutoEntry entry);

// The record file's text (pretty JSON, ends with '\n') and its parse. A file that is too large,
// not JSON, of another schema or with a field out of bounds is an error naming what is wrong.
std::string render_auto_record(const std::vector<AutoEntry>& entries);
Expected<std::vector<AutoEntry>> parse_auto_record(const std::string& text);

}  // namespace xttcp
