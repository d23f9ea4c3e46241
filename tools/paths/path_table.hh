// `xttcp compare-paths`' figures (docs/compare-paths.md): one workload's runs on each backend,
// reduced to one row per backend (medians over the repeats) and the ratios of every row against
// the baseline (epoll). Pure: sender Results in, a table and its renderings out.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/analysis/sample_stats.hh"
#include "engine/result.hh"

namespace xttcp {

inline constexpr const char* paths_schema_name = "xttcp-paths";
inline constexpr int paths_schema_version = 1;

// What one cycle counts against: a byte (TCP stream), a datagram (UDP stream) or a
// transaction (--rr).
enum class CycleUnit { byte, packet, transaction };
const char* to_string(CycleUnit unit);

// The workload every row ran, as the table's heading states it.
struct PathWorkload {
  Protocol protocol = Protocol::tcp;
  bool rr = false;
  uint64_t buffer_bytes = 0;                 // -b (the request size with --rr)
  uint64_t response_bytes = 0;               // --rr only
  uint32_t depth = 1;                        // --rr-depth
  uint32_t ports = 1, threads_per_port = 1;  // -P, -n: flows = ports x threads
  double seconds = 0;                        // -t of every run
  uint32_t repeat = 1;
  bool receive_copy = false;  // the receiver copies what it reads (--skip-rx-copy=off)
  uint32_t warmup_s = 0;      // -W of every run: not measured, before -t
};

// The figures of one run, from the sender's result and its peer's (both processes' CPU).
struct PathRun {
  double seconds = 0;
  double throughput_gbps = 0;
  std::optional<double> packets_per_s;  // UDP datagrams, --rr transactions, or none (TCP stream)
  // user + system of both processes over their windows, and the host's softirq threads over the
  // sender's window: compare-paths runs both ends on this host (loopback or its own namespaces),
  // so work the kernel deferred to ksoftirqd is theirs (docs/compare-paths.md).
  double cpu_s = 0;
  std::optional<double> softirq_threads_s;  // that last part, when it was measured
  std::optional<double> cycles_per_unit;
  std::optional<double> cpu_s_per_gb;
  std::optional<double> p50_us, p99_us, p999_us;  // --rr round trips
  bool peer_cpu = false;  // the receiver's CPU is in cpu_s (it shared its result)
};

// `clock_mhz` turns CPU seconds into cycles (0: no cycles figure).
PathRun path_run_from_result(const Result& sender, CycleUnit unit, double clock_mhz);

// One backend's runs and their medians; ratios are median / the baseline's median.
struct PathRow {
  std::string backend;
  std::vector<PathRun> runs;
  SampleSummary throughput_gbps, packets_per_s, cycles_per_unit, cpu_s_per_gb, p50_us, p99_us,
      p999_us;  // n = 0: not measured
  struct Ratios {
    std::optional<double> throughput_gbps, packets_per_s, cycles_per_unit, cpu_s_per_gb, p50_us,
        p99_us, p999_us;
  } vs_baseline;
};

struct PathTable {
  PathWorkload workload;
  CycleUnit unit = CycleUnit::byte;
  double clock_mhz = 0;
  std::string clock_source;  // where clock_mhz came from, said next to every cycles figure
  std::string tool_version;  // the runs' xttcp
  std::string cpu_model;
  uint32_t cpus = 0;
  std::string baseline = "epoll";  // the rows' ratios are against this backend's
  std::vector<PathRow> rows;       // in the order the backends ran
  std::vector<std::string> notes;  // e.g. the machine's load, a receiver that shared no CPU
};

CycleUnit cycle_unit_of(const PathWorkload& workload);

// Summaries and ratios of rows whose runs are filled in. No baseline row: no ratios.
void summarize_rows(PathTable& table);

// The console table (ends with '\n') and the native JSON (schema xttcp-paths, pretty, '\n').
std::string render_paths_table(const PathTable& table);
std::string render_paths_json(const PathTable& table);

}  // namespace xttcp
