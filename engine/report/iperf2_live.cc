#include "engine/report/iperf2_live.hh"

#include "engine/report/iperf2_csv.hh"
#include "engine/report/iperf2_interval_lines.hh"
#include "engine/report/log.hh"

namespace xttcp {

bool Iperf2LiveReport::prints(const TestSpec& spec) {
  if (spec.dialect != Dialect::iperf2 || !spec.iperf2.intervals) return false;
  return spec.iperf2.csv || !spec.iperf2.excludes('D');
}

void Iperf2LiveReport::connected(const std::vector<StreamEnds>& streams) {
  // A client's streams in flow-slot order: the key of each (its slot) is its place.
  ends_.clear();
  for (std::size_t slot = 0; slot < streams.size(); ++slot) ends_[slot] = streams[slot];
}

std::vector<std::string> Iperf2LiveReport::csv_rows(
    Role role, std::chrono::system_clock::time_point window_start, bool several,
    const Iperf2Interval& i, bool udp) const {
  const bool hide = spec_.iperf2.hide_ips;
  const auto at = window_start + std::chrono::duration_cast<std::chrono::system_clock::duration>(
                                     std::chrono::duration<double>(i.to));
  const std::string timestamp = iperf2_csv_timestamp(at, spec_.iperf2.enhanced);
  // The source is the client on both ends, as iperf 2 writes it.
  auto fields = [&](const StreamEnds& ends, int id, uint64_t bytes) {
    const std::string& source = role == Role::sender ? ends.local : ends.remote;
    const std::string& destination = role == Role::sender ? ends.remote : ends.local;
    return iperf2_csv_fields(timestamp, iperf2_endpoint(source, hide),
                             iperf2_endpoint(destination, hide), id, i.from, i.to, bytes);
  };
  std::vector<std::string> rows;
  // iperf 2.1.8 writes each stream's row and no sum row; without each stream's share, one row
  // of the sum (id -1), or of the one stream.
  if (!i.streams.empty()) {
    for (const Iperf2StreamShare& share : i.streams) {
      const StreamInterval& s = share.figures;
      const auto ends = ends_.find(s.key);
      std::string row = fields(ends != ends_.end() ? ends->second : StreamEnds{},
                               static_cast<int>(share.id), s.bytes);
      // A UDP row (as the report's rows, iperf2_udp_report): a client's datagrams sent in the
      // interval; a server's jitter, loss, total and out-of-order.
      if (udp && role == Role::sender)
        row += iperf2_csv_udp_fields(0, 0, static_cast<int64_t>(s.datagrams), 0);
      else if (udp)
        row += iperf2_csv_udp_fields(static_cast<double>(s.jitter_ns) / 1e6,
                                     static_cast<int64_t>(s.lost),
                                     static_cast<int64_t>(s.datagrams + s.lost), s.reordered);
      rows.push_back(std::move(row));
    }
    return rows;
  }
  const StreamEnds first = ends_.empty() ? StreamEnds{} : ends_.begin()->second;
  std::string row = fields(first, several ? -1 : 1, i.bytes);
  if (udp && role == Role::sender)
    row += iperf2_csv_udp_fields(0, 0, static_cast<int64_t>(i.datagrams), 0);
  else if (udp)
    row += iperf2_csv_udp_fields(i.jitter_ms, static_cast<int64_t>(i.lost),
                                 static_cast<int64_t>(i.datagrams + i.lost), 0);
  rows.push_back(std::move(row));
  return rows;
}

void Iperf2LiveReport::interval(Role role, std::chrono::system_clock::time_point window_start,
                                const IntervalSample& sample, bool udp) {
  if (!prints(spec_) || sample.seconds <= 0) return;
  if (count_ == 0 || window_start != window_) {  // a new test (a server serves one after another)
    window_ = window_start;
    count_ = 0;
    numbers_ = Iperf2StreamNumbers{};
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
  const Iperf2Interval i = iperf2_interval(sample, from, from + length, numbers_);
  const std::vector<std::string> lines = spec_.iperf2.csv
                                             ? csv_rows(role, window_start, streams > 1, i, udp)
                                             : iperf2_interval_lines(spec_, role, streams > 1, i);
  for (const std::string& line : lines) log_.raw(line);
}

}  // namespace xttcp
