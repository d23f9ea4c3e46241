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

std::string iperf2_interval_line(const TestSpec& spec, Role role, bool several,
                                 const Iperf2Interval& i) {
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
  // -e, a client: the writes of the interval, with no error count (xttcp's data path stops at a
  // failed send). Retries, cwnd and RTT are read once, at the end: iperf 2 built without TCP
  // stats prints an interval so ("%d/%d").
  // A finished test's intervals read back from a result file have no counts of calls: none shown.
  if (o.enhanced && role == Role::sender && (i.operations > 0 || i.bytes == 0))
    return figures + fmt::format("  {}/0", i.operations);
  return figures;
}

}  // namespace xttcp
