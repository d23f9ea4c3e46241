#include "tools/paths/path_table.hh"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

namespace xttcp {

namespace {

using nlohmann::ordered_json;

double both_cpu_s(const Result& r) { return r.cpu.process_user_s + r.cpu.process_system_s; }

SampleSummary summary_of(const std::vector<PathRun>& runs,
                         std::optional<double> (*pick)(const PathRun&)) {
  std::vector<double> values;
  for (const PathRun& run : runs)
    if (auto v = pick(run)) values.push_back(*v);
  return summarize(values);
}

std::optional<double> ratio(const SampleSummary& row, const SampleSummary& base) {
  if (row.n == 0 || base.n == 0 || base.median == 0) return std::nullopt;
  return row.median / base.median;
}

// Four significant digits below 10,000, whole numbers above; "-" for what was not measured.
std::string figure(const SampleSummary& s) {
  if (s.n == 0) return "-";
  return s.median >= 1e4 ? fmt::format("{:.0f}", s.median) : fmt::format("{:.4g}", s.median);
}
std::string figure(const std::optional<double>& v) {
  return v ? fmt::format("{:.2f}", *v) : std::string("-");
}

const char* cycles_heading(CycleUnit unit) {
  switch (unit) {
    case CycleUnit::byte: return "cycles/B";
    case CycleUnit::packet: return "cycles/pkt";
    case CycleUnit::transaction: return "cycles/trans";
  }
  return "cycles";
}

std::string workload_line(const PathWorkload& w) {
  const uint64_t flows = uint64_t{w.ports} * w.threads_per_port;
  std::string what =
      w.rr ? fmt::format("{} request/response, {} B requests, {} B responses, depth {}",
                         to_string(w.protocol), w.buffer_bytes, w.response_bytes, w.depth)
           : fmt::format("{} stream, {} B buffers", to_string(w.protocol), w.buffer_bytes);
  const std::string warmup =
      w.warmup_s > 0 ? fmt::format(" after {} s of warm-up", w.warmup_s) : "";
  return fmt::format("{}, {} flow{} ({} port{} x {}), {:g} s{} x {} run{} per backend, alternating",
                     what, flows, flows == 1 ? "" : "s", w.ports, w.ports == 1 ? "" : "s",
                     w.threads_per_port, w.seconds, warmup, w.repeat, w.repeat == 1 ? "" : "s");
}

ordered_json number(double v) { return std::isfinite(v) ? ordered_json(v) : ordered_json(nullptr); }
ordered_json optional_number(const std::optional<double>& v) {
  return v ? number(*v) : ordered_json(nullptr);
}
ordered_json summary_json(const SampleSummary& s) {
  if (s.n == 0) return nullptr;
  return {{"n", s.n},           {"median", number(s.median)}, {"mean", number(s.mean)},
          {"cv", number(s.cv)}, {"min", number(s.min)},       {"max", number(s.max)}};
}

}  // namespace

const char* to_string(CycleUnit unit) {
  switch (unit) {
    case CycleUnit::byte: return "byte";
    case CycleUnit::packet: return "packet";
    case CycleUnit::transaction: return "transaction";
  }
  return "?";
}

CycleUnit cycle_unit_of(const PathWorkload& workload) {
  if (workload.rr) return CycleUnit::transaction;
  return workload.protocol == Protocol::udp ? CycleUnit::packet : CycleUnit::byte;
}

PathRun path_run_from_result(const Result& sender, CycleUnit unit, double clock_mhz) {
  PathRun run;
  // What was delivered is the receiver's to say (a UDP sender also counts what the receiver
  // dropped); --rr counts both directions at the requester, which alone times round trips.
  const bool from_peer = sender.peer != nullptr && !sender.rr;
  const Result& delivered = from_peer ? *sender.peer : sender;
  run.seconds = delivered.duration_s;
  run.throughput_gbps = delivered.throughput_bps() / 1e9;
  run.cpu_s = both_cpu_s(sender);
  if (sender.peer) {
    run.cpu_s += both_cpu_s(*sender.peer);
    run.peer_cpu = true;
  }
  // The host's, so once: the sender's window, or the receiver's when only it measured them.
  run.softirq_threads_s = sender.cpu.softirq_threads_s;
  if (!run.softirq_threads_s && sender.peer)
    run.softirq_threads_s = sender.peer->cpu.softirq_threads_s;
  if (run.softirq_threads_s) run.cpu_s += *run.softirq_threads_s;
  double units = 0;
  if (sender.rr) {
    run.packets_per_s = sender.rr->transactions_per_s;
    units = static_cast<double>(sender.rr->transactions);
    if (sender.rr->latency.count > 0) {
      run.p50_us = static_cast<double>(sender.rr->latency.p50_ns) / 1e3;
      run.p99_us = static_cast<double>(sender.rr->latency.p99_ns) / 1e3;
      run.p999_us = static_cast<double>(sender.rr->latency.p999_ns) / 1e3;
    }
  } else if (delivered.udp) {
    run.packets_per_s = delivered.udp->window_pps;
    units = static_cast<double>(delivered.udp->window_datagrams);
  } else {
    units = static_cast<double>(delivered.total_bytes);
  }
  if (unit == CycleUnit::byte) units = static_cast<double>(delivered.total_bytes);
  if (clock_mhz > 0 && units > 0) run.cycles_per_unit = run.cpu_s * clock_mhz * 1e6 / units;
  if (delivered.total_bytes > 0)
    run.cpu_s_per_gb = run.cpu_s / (static_cast<double>(delivered.total_bytes) / 1e9);
  return run;
}

void summarize_rows(PathTable& table) {
  for (PathRow& row : table.rows) {
    row.throughput_gbps = summary_of(
        row.runs, [](const PathRun& r) -> std::optional<double> { return r.throughput_gbps; });
    row.packets_per_s = summary_of(row.runs, [](const PathRun& r) { return r.packets_per_s; });
    row.cycles_per_unit = summary_of(row.runs, [](const PathRun& r) { return r.cycles_per_unit; });
    row.cpu_s_per_gb = summary_of(row.runs, [](const PathRun& r) { return r.cpu_s_per_gb; });
    row.p50_us = summary_of(row.runs, [](const PathRun& r) { return r.p50_us; });
    row.p99_us = summary_of(row.runs, [](const PathRun& r) { return r.p99_us; });
    row.p999_us = summary_of(row.runs, [](const PathRun& r) { return r.p999_us; });
  }
  const PathRow* base = nullptr;
  for (const PathRow& row : table.rows)
    if (row.backend == table.baseline) base = &row;
  for (PathRow& row : table.rows) {
    row.vs_baseline = {};
    if (base == nullptr) continue;
    row.vs_baseline.throughput_gbps = ratio(row.throughput_gbps, base->throughput_gbps);
    row.vs_baseline.packets_per_s = ratio(row.packets_per_s, base->packets_per_s);
    row.vs_baseline.cycles_per_unit = ratio(row.cycles_per_unit, base->cycles_per_unit);
    row.vs_baseline.cpu_s_per_gb = ratio(row.cpu_s_per_gb, base->cpu_s_per_gb);
    row.vs_baseline.p50_us = ratio(row.p50_us, base->p50_us);
    row.vs_baseline.p99_us = ratio(row.p99_us, base->p99_us);
    row.vs_baseline.p999_us = ratio(row.p999_us, base->p999_us);
  }
}

std::string render_paths_table(const PathTable& table) {
  const bool rr = table.workload.rr;
  std::string out = fmt::format("compare-paths: {}\n", workload_line(table.workload));
  out += fmt::format("cpu: {} ({} CPUs)\n", table.cpu_model.empty() ? "unknown" : table.cpu_model,
                     table.cpus);
  // ksoftirqd's time is in a run's figures when the run measured it (Linux, /proc showing it).
  size_t runs = 0, with_softirq_threads = 0;
  for (const PathRow& row : table.rows)
    for (const PathRun& run : row.runs) {
      ++runs;
      if (run.softirq_threads_s) ++with_softirq_threads;
    }
  std::string whose = "both processes";
  if (with_softirq_threads == runs && runs > 0)
    whose += " and ksoftirqd";
  else if (with_softirq_threads > 0)
    whose += fmt::format(" and ksoftirqd (measured in {} of {} runs)", with_softirq_threads, runs);
  if (table.clock_mhz > 0)
    out += fmt::format(
        "cycles: CPU time of {} x {:.1f} MHz ({}); no hardware "
        "counters are read\n",
        whose, table.clock_mhz, table.clock_source);
  else
    out += "cycles: not computed (no CPU clock known)\n";
  const char* rate = rr ? "trans/s" : "pkt/s";
  auto heading = [&] {
    std::string h = fmt::format("{:<10} {:>4} {:>13} {:>10} {:>12} {:>9}", "backend", "runs",
                                "Gbit/s", rate, cycles_heading(table.unit), "CPU-s/GB");
    if (rr) h += fmt::format(" {:>9} {:>9} {:>9}", "p50 us", "p99 us", "p99.9 us");
    return h + "\n";
  };
  out += "\nmedians (Gbit/s spread: coefficient of variation over the runs)\n" + heading();
  for (const PathRow& row : table.rows) {
    std::string gbps = figure(row.throughput_gbps);
    if (row.throughput_gbps.n > 1) gbps += fmt::format(" ±{:.0f}%", row.throughput_gbps.cv * 100);
    out += fmt::format("{:<10} {:>4} {:>13} {:>10} {:>12} {:>9}", row.backend, row.runs.size(),
                       gbps, figure(row.packets_per_s), figure(row.cycles_per_unit),
                       figure(row.cpu_s_per_gb));
    if (rr)
      out += fmt::format(" {:>9} {:>9} {:>9}", figure(row.p50_us), figure(row.p99_us),
                         figure(row.p999_us));
    out += "\n";
  }
  out += fmt::format("\nratio to {} (medians; lower is better for cycles, CPU and latency)\n",
                     table.baseline) +
         heading();
  for (const PathRow& row : table.rows) {
    const auto& r = row.vs_baseline;
    out += fmt::format("{:<10} {:>4} {:>13} {:>10} {:>12} {:>9}", row.backend, row.runs.size(),
                       figure(r.throughput_gbps), figure(r.packets_per_s),
                       figure(r.cycles_per_unit), figure(r.cpu_s_per_gb));
    if (rr)
      out +=
          fmt::format(" {:>9} {:>9} {:>9}", figure(r.p50_us), figure(r.p99_us), figure(r.p999_us));
    out += "\n";
  }
  for (const std::string& note : table.notes) out += "note: " + note + "\n";
  return out;
}

std::string render_paths_json(const PathTable& table) {
  const PathWorkload& w = table.workload;
  ordered_json workload = {{"protocol", to_string(w.protocol)},
                           {"mode", w.rr ? "rr" : "stream"},
                           {"buffer_bytes", w.buffer_bytes}};
  if (w.rr) {
    workload["response_bytes"] = w.response_bytes;
    workload["depth"] = w.depth;
  }
  workload["ports"] = w.ports;
  workload["threads_per_port"] = w.threads_per_port;
  workload["duration_s"] = number(w.seconds);
  if (w.warmup_s > 0) workload["warmup_s"] = w.warmup_s;
  workload["repeat"] = w.repeat;
  ordered_json rows = ordered_json::array();
  for (const PathRow& row : table.rows) {
    ordered_json runs = ordered_json::array();
    for (const PathRun& run : row.runs)
      runs.push_back({{"seconds", number(run.seconds)},
                      {"throughput_gbps", number(run.throughput_gbps)},
                      {"packets_per_s", optional_number(run.packets_per_s)},
                      {"cpu_s", number(run.cpu_s)},
                      {"receiver_cpu_included", run.peer_cpu},
                      {"softirq_threads_s", optional_number(run.softirq_threads_s)},
                      {"cycles_per_unit", optional_number(run.cycles_per_unit)},
                      {"cpu_s_per_gb", optional_number(run.cpu_s_per_gb)},
                      {"p50_us", optional_number(run.p50_us)},
                      {"p99_us", optional_number(run.p99_us)},
                      {"p99_9_us", optional_number(run.p999_us)}});
    const auto& r = row.vs_baseline;
    rows.push_back({{"backend", row.backend},
                    {"runs", runs},
                    {"summary",
                     {{"throughput_gbps", summary_json(row.throughput_gbps)},
                      {"packets_per_s", summary_json(row.packets_per_s)},
                      {"cycles_per_unit", summary_json(row.cycles_per_unit)},
                      {"cpu_s_per_gb", summary_json(row.cpu_s_per_gb)},
                      {"p50_us", summary_json(row.p50_us)},
                      {"p99_us", summary_json(row.p99_us)},
                      {"p99_9_us", summary_json(row.p999_us)}}},
                    {"vs_baseline",
                     {{"throughput_gbps", optional_number(r.throughput_gbps)},
                      {"packets_per_s", optional_number(r.packets_per_s)},
                      {"cycles_per_unit", optional_number(r.cycles_per_unit)},
                      {"cpu_s_per_gb", optional_number(r.cpu_s_per_gb)},
                      {"p50_us", optional_number(r.p50_us)},
                      {"p99_us", optional_number(r.p99_us)},
                      {"p99_9_us", optional_number(r.p999_us)}}}});
  }
  ordered_json j = {{"schema", paths_schema_name},
                    {"schema_version", paths_schema_version},
                    {"tool", {{"name", "xttcp"}, {"version", table.tool_version}}},
                    {"workload", workload},
                    {"host", {{"cpu_model", table.cpu_model}, {"cpus", table.cpus}}},
                    {"clock", {{"mhz", number(table.clock_mhz)}, {"source", table.clock_source}}},
                    {"cycle_unit", to_string(table.unit)},
                    {"baseline", table.baseline},
                    {"rows", rows},
                    {"notes", table.notes}};
  return j.dump(2) + "\n";
}

}  // namespace xttcp
