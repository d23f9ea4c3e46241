// A sweep (`xttcp sweep`, docs/regression.md "Sweeps"): a matrix of workloads run against one
// receiver, each cell a set of repeated runs (native_runs.hh) with its statistics, the
// environment once, and the cells planned but not run (schema "xttcp-sweep").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.hh"
#include "engine/report/native_runs.hh"

namespace xttcp {

inline constexpr const char* native_sweep_schema_name = "xttcp-sweep";
inline constexpr int native_sweep_schema_version = 1;
// A sweep holds many sets of runs: bounded as a set is, and in cells.
inline constexpr std::size_t max_sweep_cells = 1024;

enum class CellKind { tcp, udp, rr };
const char* to_string(CellKind kind);  // "tcp", "udp", "rr"
// The metric a cell of this kind is judged by first (run_metrics' key): throughput; --rr: the
// median round trip.
const char* headline_metric(CellKind kind);

// One workload of the matrix: what its sender runs beside the options every cell shares.
struct SweepCell {
  CellKind kind = CellKind::tcp;
  uint32_t connections = 1;  // TCP connections, UDP flows, --rr flows
  uint32_t size_bytes = 0;   // -b: TCP write, UDP datagram, --rr request
  std::string backend;       // --backend; "" = the shared options' own
  bool operator==(const SweepCell&) const = default;
  // The key `compare` matches cells by: "tcp/c4/s65536" (+ "/epoll" with a backend).
  std::string id() const;
  // "TCP, 4 connections, 64K writes, epoll": for the console and the report.
  std::string label() const;
};

enum class CellOutcome { measured, failed };

struct SweepCellResult {
  SweepCell cell;
  CellOutcome outcome = CellOutcome::measured;
  std::string error;   // failed: the sender's reason, one line
  double seconds = 0;  // wall time the cell took
  RunSet runs;         // measured: every run (at least one)
};

struct Sweep {
  std::string sender_args;             // the options every cell shared, as given
  uint32_t repeat = 1;                 // runs per cell
  std::vector<SweepCell> plan;         // every cell asked for, in order
  std::vector<SweepCellResult> cells;  // those that ran (measured or failed), in order
  // Ctrl+C, or three failed cells in a row: the cells after the last one here did not run. The
  // file also says "complete" (derived: not interrupted, and every planned cell ran), false in
  // every file written while the sweep still runs.
  bool interrupted = false;
};

// Pretty (2-space indent), ends with '\n'. The environment is the first measured run's host.
std::string render_native_sweep(const Sweep& sweep);
// Within bounds (native_runs_max_bytes, max_sweep_cells); every measured cell's runs as
// parse_native_runs reads them; ids unique. Errors name the cell: "cells[3]: runs[0]: ...".
Expected<Sweep> parse_native_sweep(std::string_view text);
// Whether `text` is a sweep document (its "schema"), read within the same bounds.
bool is_native_sweep(std::string_view text);

}  // namespace xttcp
