#include "engine/report/windows_console.hh"

#include <fmt/format.h>

#include "engine/report/rr_console.hh"
#include "engine/report/windows_figures.hh"
#include "xttcp_config.h"

namespace xttcp {

namespace {

// printf("%{width}.{precision}f"), or "NA" right-aligned in the same width.
std::string number(const std::optional<double>& value, int width, int precision) {
  if (!value) return fmt::format("{:>{}}", windows_unavailable, width);
  return fmt::format("{:{}.{}f}", *value, width, precision);
}

std::string count(const std::optional<uint64_t>& value, int width) {
  if (!value) return fmt::format("{:>{}}", windows_unavailable, width);
  return fmt::format("{:{}}", *value, width);
}

void append_thread_table(std::string& out, const WindowsFigures& f) {
  if (f.latency_measurement) {
    out +=
        "\n                                               Latency(ns)"
        "\nThread  Time(s) Throughput(KB/s) Avg B / Compl        Avg        Min        Max\n";
    out += "======  ======= ================ ============= ========== ========== ==========\n";
  } else {
    out += "\n\nThread  Time(s) Throughput(KB/s) Avg B / Compl\n";
    out += "======  ======= ================ =============\n";
  }
  for (const WindowsThreadFigures& t : f.threads) {
    out += fmt::format("{:6} {:8.3f} {:16.3f} {}", t.index, t.seconds, t.console_kilobytes_per_s,
                       number(t.avg_bytes_per_completion, 13, 3));
    if (f.latency_measurement) {
      const auto latency = t.latency;
      out += fmt::format(" {} {} {}",
                         number(latency ? std::optional(latency->average_ns) : std::nullopt, 10, 0),
                         number(latency ? std::optional(latency->min_ns) : std::nullopt, 10, 0),
                         number(latency ? std::optional(latency->max_ns) : std::nullopt, 10, 0));
    }
    out += "\n";
  }
}

}  // namespace

std::string windows_banner_line() {
  return fmt::format("Copyright Version {} (xttcp {})", windows_ntttcp_version, XTTCP_VERSION);
}

std::string render_windows_console(const Result& result) {
  const WindowsFigures f = windows_figures(result);
  std::string out;
  if (!f.hide_per_thread) append_thread_table(out, f);

  out += "\n\n#####  Totals:  #####\n";
  out += "\n\n   Bytes(MEG)    realtime(s) Avg Frame Size Throughput(MB/s)\n";
  out += "================ =========== ============== ================\n";
  out += fmt::format("{:16.6f} {:11.3f} {} {:16.3f}\n", f.total_megabytes, f.seconds,
                     number(f.avg_frame_size, 14, 3), f.megabytes_per_s);

  if (f.latency_measurement) {
    const auto& latency = f.latency;
    out += "\nLatency(ns)";
    out += "\n       Avg        Min        Max\n";
    out += "========== ========== ==========\n";
    out += fmt::format("{} {} {}\n",
                       number(latency ? std::optional(latency->average_ns) : std::nullopt, 10, 0),
                       number(latency ? std::optional(latency->min_ns) : std::nullopt, 10, 0),
                       number(latency ? std::optional(latency->max_ns) : std::nullopt, 10, 0));
  }

  out += "\n\nThroughput(Buffers/s) Cycles/Byte       Buffers\n";
  out += "===================== =========== =============\n";
  out += fmt::format("{:21.3f} {} {:13.3f}\n", f.buffers_per_s, number(f.cycles_per_byte, 11, 3),
                     f.total_buffers);

  out += "\n\n";
  out += "DPCs(count/s) Pkts(num/DPC)   Intr(count/s) Pkts(num/intr)\n";
  out += "============= ============= =============== ==============\n";
  out +=
      fmt::format("{} {}   {}  {}\n", number(f.dpcs_per_s, 13, 3), number(f.packets_per_dpc, 13, 3),
                  number(f.interrupts_per_s, 13, 3), number(f.packets_per_interrupt, 13, 3));

  out += "\n\nPackets Sent Packets Received Retransmits Errors Avg. CPU %\n";
  out += "============ ================ =========== ====== ==========\n";
  out +=
      fmt::format("{} {} {:11} {} {}\n", count(f.packets_sent, 12), count(f.packets_received, 16),
                  f.retransmits, count(f.errors, 6), number(f.cpu_percent, 10, 3));
  if (result.rr) {  // xttcp's own --rr block (docs/rr.md), after NTttcp's tables
    out += "\n\nRequest/response\n";
    for (const std::string& line : rr_console_lines(result)) out += line + "\n";
  }
  out += windows_cpu_note(result);
  return out;
}

std::string windows_cpu_note(const Result& result) {
  const WindowsFigures f = windows_figures(result);
  // Only a measured figure can be "below 0%"; an unavailable one says nothing.
  if (f.cpu_percent && *f.cpu_percent <= 0)
    return "\n\nNOTE::Avg CPU% drops below 0% if test duration is too short\n\n";
  return "";
}

}  // namespace xttcp
