#include "engine/report/iperf2_interval_lines.hh"

#include <fmt/format.h>

#include "engine/report/iperf2_console.hh"

namespace xttcp {

namespace {

double percent(uint64_t lost, uint64_t total) {
  return total > 0 ? 100.0 * static_cast<double>(lost) / static_cast<double>(total) : 0;
}

double per_second(uint64_t count, double seconds) {
  return seconds > 0 ? static_cast<double>(count) / seconds : 0;
}

std::string out_of_order(const std::string& id, double from, double to, uint64_t count) {
  return fmt::format("{} {:.4f}-{:.4f} sec  {} datagrams received out-of-order", id, from, to,
                     count);
}

// One stream's line of interval `i`, and (a UDP server's) its out-of-order line.
void stream_lines(const TestSpec& spec, Role role, const Iperf2Interval& i,
                  const Iperf2StreamShare& share, std::vector<std::string>& out) {
  const Iperf2Options& o = spec.iperf2;
  const StreamInterval& s = share.figures;
  const std::string id = iperf2_stream_id(share.id);
  const double seconds = i.to - i.from;
  std::string line = iperf2_figures(id, i.from, i.to, static_cast<double>(s.bytes), o.format);
  if (spec.workload.protocol == Protocol::udp) {
    if (role == Role::sender) {
      if (o.enhanced) line += iperf2_udp_client_enhanced(s.datagrams, seconds);
      out.push_back(line);
      return;
    }
    out.push_back(line + iperf2_udp_server_columns(o.enhanced,
                                                   static_cast<double>(s.jitter_ns) / 1e6, s.lost,
                                                   s.datagrams + s.lost, seconds));
    if (s.reordered > 0) out.push_back(out_of_order(id, i.from, i.to, s.reordered));
    return;
  }
  if (o.enhanced && role == Role::sender)
    line += s.tcp ? iperf2_tcp_client_enhanced(s.operations, *s.tcp, s.bytes, seconds)
                  : fmt::format("  {}/0", s.operations);
  if (o.enhanced && role == Role::receiver && s.read_sizes)
    line += iperf2_reads_column(*s.read_sizes);
  out.push_back(line);
}

// The line of an interval's total: the [SUM] of several streams, or the one stream's line when
// the interval does not carry it.
std::string total_line(const TestSpec& spec, Role role, bool several, const Iperf2Interval& i) {
  const Iperf2Options& o = spec.iperf2;
  const std::string id = several ? "[SUM]" : iperf2_stream_id(1);
  const std::string figures =
      iperf2_figures(id, i.from, i.to, static_cast<double>(i.bytes), o.format);
  const double seconds = i.to - i.from;
  if (spec.workload.protocol == Protocol::udp) {
    if (role == Role::sender)
      return figures + (o.enhanced ? iperf2_udp_client_enhanced(i.datagrams, seconds) : "");
    const uint64_t total = i.datagrams + i.lost;
    if (!several)
      return figures + iperf2_udp_server_columns(o.enhanced, i.jitter_ms, i.lost, total, seconds);
    // The [SUM] of several streams: no jitter (a sum of streams has none), also with -e.
    return figures + fmt::format("   {}/{} ({:.2g}%)", i.lost, total, percent(i.lost, total));
  }
  if (!o.enhanced) return figures;
  if (role == Role::receiver) {
    // The streams' reads, when they were counted.
    ReadSizes reads;
    bool counted = false;
    for (const Iperf2StreamShare& s : i.streams)
      if (s.figures.read_sizes) {
        reads += *s.figures.read_sizes;
        counted = true;
      }
    return counted ? figures + iperf2_reads_column(reads) : figures;
  }
  // A client: the writes of the interval, with no error count (xttcp's data path stops at a
  // failed send); its [SUM] adds the streams' retries when their TCP_INFO was read ("%d/%d%10d").
  // A finished test's intervals read back from a result file have no counts of calls: none shown.
  if (i.operations == 0 && i.bytes > 0) return figures;
  uint64_t retries = 0;
  bool read = false;
  for (const Iperf2StreamShare& s : i.streams)
    if (s.figures.tcp) {
      retries += s.figures.tcp->retransmits;
      read = true;
    }
  return figures + (read && several ? fmt::format("  {}/0{:10}", i.operations, retries)
                                    : fmt::format("  {}/0", i.operations));
}

}  // namespace

std::string iperf2_data_header(const TestSpec& spec, Role role) {
  const bool enhanced = spec.iperf2.enhanced;
  if (spec.workload.protocol == Protocol::udp) {
    if (role == Role::sender)
      return enhanced ? "[ ID] Interval            Transfer     Bandwidth      Write/Err  PPS"
                      : "[ ID] Interval       Transfer     Bandwidth";
    return enhanced ? "[ ID] Interval            Transfer     Bandwidth        Jitter   Lost/Total "
                      " Latency avg/min/max/stdev PPS  Rx/inP  NetPwr"
                    : "[ ID] Interval       Transfer     Bandwidth        Jitter   Lost/Total "
                      "Datagrams";
  }
  if (enhanced && role == Role::sender)
    return "[ ID] Interval            Transfer    Bandwidth       Write/Err  Rtry     "
           "Cwnd/RTT(var)        NetPwr";
  if (enhanced) return "[ ID] Interval            Transfer    Bandwidth       Reads=Dist";
  return "[ ID] Interval       Transfer     Bandwidth";
}

std::string iperf2_udp_client_enhanced(uint64_t datagrams, double seconds) {
  return fmt::format("  {}/0 {:8.0f} pps", datagrams, per_second(datagrams, seconds));
}

std::string iperf2_udp_server_columns(bool enhanced, double jitter_ms, uint64_t lost,
                                      uint64_t total, double seconds) {
  std::string out =
      fmt::format("  {:6.3f} ms {}/{} ({:.2g}%)", jitter_ms, lost, total, percent(lost, total));
  if (enhanced) out += fmt::format(" -/-/-/- ms {:.0f} pps", per_second(total - lost, seconds));
  return out;
}

std::string iperf2_tcp_client_enhanced(std::optional<uint64_t> writes, const ConnectionInterval& t,
                                       uint64_t bytes, double seconds) {
  // Net power: bytes a second per microsecond of RTT, as iperf 2 computes it.
  const double rate = seconds > 0 ? static_cast<double>(bytes) / seconds : 0;
  const std::string power = t.rtt_us > 0 ? fmt::format("{:.0f}", rate / t.rtt_us) : "-";
  return fmt::format("  {}/0 {:10} {:8}K/{}({}) us  {}", writes ? fmt::format("{}", *writes) : "-",
                     t.retransmits, uint64_t{t.snd_cwnd} * t.snd_mss / 1024, t.rtt_us, t.rttvar_us,
                     power);
}

std::string iperf2_reads_column(const ReadSizes& r) {
  return fmt::format("  {}={}:{}:{}:{}:{}:{}:{}:{}", r.reads, r.bins[0], r.bins[1], r.bins[2],
                     r.bins[3], r.bins[4], r.bins[5], r.bins[6], r.bins[7]);
}

std::vector<std::string> iperf2_interval_lines(const TestSpec& spec, Role role, bool several,
                                               const Iperf2Interval& i) {
  std::vector<std::string> out;
  if (!spec.iperf2.sum_only || !several)
    for (const Iperf2StreamShare& share : i.streams) stream_lines(spec, role, i, share, out);
  // One stream whose own line was printed has no [SUM].
  if (several || i.streams.empty()) out.push_back(total_line(spec, role, several, i));
  return out;
}

}  // namespace xttcp
