#include "engine/report/iperf2_console.hh"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "engine/report/iperf2_csv.hh"
#include "engine/report/iperf2_interval_lines.hh"
#include "engine/report/iperf2_streams.hh"
#include "engine/report/iperf2_udp_report.hh"

namespace xttcp {

namespace {

constexpr const char* dashes = "------------------------------------------------------------";

// -e, a client's stream: Write/Err  Rtry  Cwnd/RTT(var)  NetPwr (net power: bytes/s per us of RTT).
std::string enhanced_columns(const Iperf2Stream& s, double seconds) {
  const ConnectionStats& t = s.tcp;
  ConnectionInterval end;  // TCP_INFO at the end: the whole test's retries
  end.retransmits = t.total_retrans;
  end.snd_cwnd = t.snd_cwnd;
  end.snd_mss = t.snd_mss;
  end.rtt_us = t.rtt_us;
  end.rttvar_us = t.rttvar_us;
  return iperf2_tcp_client_enhanced(s.calls, end, s.bytes, seconds);
}

// -e, a client's [SUM]: "%d/%d%10d", Write/Err and Rtry.
std::string enhanced_sum(const std::vector<Iperf2Stream>& streams) {
  uint64_t calls = 0, retries = 0;
  bool counted = true;
  for (const Iperf2Stream& s : streams) {
    counted = counted && s.calls.has_value();
    calls += s.calls.value_or(0);
    retries += s.tcp.total_retrans;
  }
  return fmt::format("  {}/0{:10}", counted ? fmt::format("{}", calls) : "-", retries);
}

// -e, a server: each stream's reads by size, and the [SUM] of them (nothing where not counted).
std::string reads_column(const Iperf2Stream& s) {
  return s.tcp.read_sizes ? iperf2_reads_column(*s.tcp.read_sizes) : "";
}
std::string reads_sum(const std::vector<Iperf2Stream>& streams) {
  ReadSizes sum;
  bool counted = false;
  for (const Iperf2Stream& s : streams)
    if (s.tcp.read_sizes) {
      sum += *s.tcp.read_sizes;
      counted = true;
    }
  return counted ? iperf2_reads_column(sum) : "";
}

// A size in iperf 2's settings lines: "128 KByte", "183 Byte" (its byte_snprintf).
std::string setting_size(double bytes) {
  std::string text = iperf2_amount(bytes, 'A');
  if (text.ends_with('s')) text.pop_back();
  return text;
}

std::string stream_id(uint32_t id) { return iperf2_stream_id(id); }
std::string figures(const std::string& id, double from, double to, double bytes, char format) {
  return iperf2_figures(id, from, to, bytes, format);
}

}  // namespace

std::string iperf2_stream_id(uint32_t id) { return fmt::format("[{:3}]", id); }

std::string iperf2_figures(const std::string& id, double from, double to, double bytes,
                           char format) {
  const double seconds = to - from;
  const double rate = seconds > 0 ? bytes / seconds : 0;
  const char bytes_format = static_cast<char>(std::toupper(static_cast<unsigned char>(format)));
  return fmt::format("{} {:.4f}-{:.4f} sec  {}  {}/sec", id, from, to,
                     iperf2_amount(bytes, bytes_format), iperf2_amount(rate, format));
}

std::string iperf2_amount(double bytes, char format) {
  static constexpr const char* byte_units[] = {"Bytes", "KBytes", "MBytes", "GBytes", "TBytes"};
  static constexpr const char* bit_units[] = {"bits", "Kbits", "Mbits", "Gbits", "Tbits"};
  const bool as_bytes = std::isupper(static_cast<unsigned char>(format)) != 0;
  const char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(format)));
  double value = as_bytes ? bytes : bytes * 8;
  const double step = as_bytes ? 1024.0 : 1000.0;
  int unit = 0;
  if (lower == 'a') {
    while (value >= step && unit < 4) {
      value /= step;
      ++unit;
    }
  } else {
    unit = lower == 'k' ? 1 : lower == 'm' ? 2 : lower == 'g' ? 3 : lower == 't' ? 4 : 0;
    value /= std::pow(step, unit);
  }
  const char* name = as_bytes ? byte_units[unit] : bit_units[unit];
  if (value < 9.995) return fmt::format("{:4.2f} {}", value, name);
  if (value < 99.95) return fmt::format("{:4.1f} {}", value, name);
  return fmt::format("{:4.0f} {}", value, name);
}

std::vector<std::string> iperf2_banner_lines(const TestSpec& spec) {
  if (spec.iperf2.csv || spec.iperf2.excludes('S')) return {};
  const bool udp = spec.workload.protocol == Protocol::udp;
  const char* protocol = udp ? "UDP" : "TCP";
  std::vector<std::string> lines{dashes};
  if (spec.role == Role::receiver) {
    lines.push_back(fmt::format("Server listening on {} port {}", protocol, spec.layout.base_port));
    // -e: the read size and the width of Reads=Dist's bins (iperf 2's: -l / 8).
    if (spec.iperf2.enhanced)
      lines.push_back(fmt::format("Read buffer size: {} (Dist bin width={})",
                                  setting_size(spec.workload.recv_buffer),
                                  setting_size(spec.workload.recv_buffer / 8)));
  } else {
    const uint64_t streams = spec.sender_connections();
    lines.push_back(fmt::format("Client connecting to {}, {} port {}{}", spec.layout.address,
                                protocol, spec.layout.base_port,
                                streams > 1 ? fmt::format(" ({} flows)", streams) : ""));
    if (spec.iperf2.enhanced)
      lines.push_back(fmt::format("Write buffer size: {} Byte", spec.workload.send_buffer));
    // The gap between a stream's datagrams at its -b (iperf 2 adjusts it as it goes).
    const double stream_bps = static_cast<double>(spec.workload.rate_limit_bps) /
                              static_cast<double>(std::max<uint64_t>(streams, 1));
    if (udp && stream_bps > 0)
      lines.push_back(fmt::format(
          "Sending {} byte datagrams, IPG target: {:.2f} us (kalman adjust)",
          spec.workload.send_buffer, spec.workload.send_buffer * 8.0 / stream_bps * 1e6));
  }
  if (spec.io.socket_recv_buffer > 0)
    lines.push_back(
        fmt::format("{}: {} (requested)", udp ? "UDP buffer size" : "TCP window size",
                    iperf2_amount(static_cast<double>(spec.io.socket_recv_buffer), 'A')));
  lines.push_back(dashes);
  return lines;
}

std::vector<std::string> iperf2_report_lines(const Result& r, bool intervals_printed) {
  if (r.spec.workload.protocol == Protocol::udp)
    return iperf2_udp_report_lines(r, intervals_printed);
  if (r.spec.iperf2.csv) return iperf2_csv_lines(r, intervals_printed);
  const Iperf2Options& o = r.spec.iperf2;
  const bool enhanced = o.enhanced && r.role == Role::sender;
  const bool reads = o.enhanced && r.role == Role::receiver;
  std::vector<std::string> out;
  const std::vector<Iperf2Stream> streams = iperf2_streams(r);
  if (!o.excludes('C'))
    for (const Iperf2Stream& s : streams)
      out.push_back(fmt::format("{} local {} port {} connected with {} port {}", stream_id(s.id),
                                s.local.host, s.local.port, s.remote.host, s.remote.port));
  if (o.excludes('D')) return out;
  out.push_back(iperf2_data_header(r.spec, r.role));
  const bool several = streams.size() > 1;
  if (o.intervals && !intervals_printed)
    for (const Iperf2Interval& i : iperf2_intervals(r))
      for (std::string& line : iperf2_interval_lines(r.spec, r.role, several, i))
        out.push_back(std::move(line));
  if (!o.sum_only || !several)
    for (const Iperf2Stream& s : streams)
      out.push_back(
          figures(stream_id(s.id), 0, r.duration_s, static_cast<double>(s.bytes), o.format) +
          (enhanced ? enhanced_columns(s, r.duration_s) : "") + (reads ? reads_column(s) : ""));
  if (several)
    out.push_back(figures("[SUM]", 0, r.duration_s, static_cast<double>(r.total_bytes), o.format) +
                  (enhanced ? enhanced_sum(streams) : "") + (reads ? reads_sum(streams) : ""));
  return out;
}

}  // namespace xttcp
