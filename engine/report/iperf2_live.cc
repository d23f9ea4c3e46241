#include "engine/report/iperf2_live.hh"

#include "engine/report/iperf2_csv.hh"
#include "engine/report/iperf2_interval_lines.hh"
#include "engine/report/log.hh"

namespace xttcp {

bool Iperf2LiveReport::prints(const TestSpec& spec) {
  if (spec.dialect != Dialect::iperf2 || !spec.iperf2.intervals) return false;
  return spec.iperf2.csv ? spec.role == Role::sender : !spec.iperf2.excludes('D');
}

std::string Iperf2LiveReport::csv_row(std::chrono::system_clock::time_point window_start,
                                      bool several, double from, double to,
                                      const IntervalSample& sample, bool udp) const {
  const bool hide = spec_.iperf2.hide_ips;
  const StreamEnds first = streams_.empty() ? StreamEnds{} : streams_.front();
  const auto at = window_start + std::chrono::duration_cast<std::chrono::system_clock::duration>(
                                     std::chrono::duration<double>(to));
  std::string row = iperf2_csv_fields(
      iperf2_csv_timestamp(at, spec_.iperf2.enhanced), iperf2_endpoint(first.local, hide),
      iperf2_endpoint(first.remote, hide), several ? -1 : 1, from, to, sample.bytes);
  // A client's UDP row: its datagrams sent in the interval (as the report's rows,
  // iperf2_udp_report).
  if (udp) row += iperf2_csv_udp_fields(0, 0, static_cast<int64_t>(sample.datagrams), 0);
  return row;
}

void Iperf2LiveReport::interval(Role role, std::chrono::system_clock::time_point window_start,
                                const IntervalSample& sample, bool udp) {
  if (!prints(spec_) || sample.seconds <= 0) return;
  if (count_ == 0 || window_start != window_) {  // a new test (a server serves one after another)
    window_ = window_start;
    count_ = 0;
    if (!spec_.iperf2.csv) log_.raw(iperf2_data_header(spec_, role));
  }
  // On the -i grid, as iperf 2 prints it; the window's last interval may be shorter.
  const double step = spec_.output.interval_s;
  const double from = static_cast<double>(count_) * step;
  ++count_;
  // A client knows its streams from -P; a server counts those it has.
  const uint64_t streams = role == Role::sender ? spec_.sender_connections() : sample.streams;
  // The end on the grid, but a shorter last interval keeps its length (a client's -t that is
  // not a multiple of -i; a server's test that ends when its client closes).
  const double length = sample.seconds < 0.9 * step ? sample.seconds : step;
  const Iperf2Interval i{from,
                         from + length,
                         sample.bytes,
                         sample.operations,
                         sample.datagrams,
                         sample.lost,
                         static_cast<double>(sample.jitter_ns) / 1e6};
  log_.raw(spec_.iperf2.csv ? csv_row(window_start, streams > 1, i.from, i.to, sample, udp)
                            : iperf2_interval_line(spec_, role, streams > 1, i));
}

}  // namespace xttcp
