#include "engine/report/iperf2_live.hh"

#include <algorithm>

#include "engine/report/iperf2_interval_lines.hh"
#include "engine/report/log.hh"

namespace xttcp {

bool Iperf2LiveReport::prints(const TestSpec& spec) {
  return spec.dialect == Dialect::iperf2 && spec.iperf2.intervals && !spec.iperf2.csv &&
         !spec.iperf2.excludes('D');
}

void Iperf2LiveReport::interval(Role role, std::chrono::system_clock::time_point window_start,
                                const IntervalSample& sample, bool) {
  if (!prints(spec_) || sample.seconds <= 0) return;
  if (count_ == 0 || window_start != window_) {  // a new test (a server serves one after another)
    window_ = window_start;
    count_ = 0;
    log_.raw(iperf2_data_header(spec_, role));
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
  log_.raw(iperf2_interval_line(spec_, role, streams > 1, i));
}

}  // namespace xttcp
