#include "engine/report/iperf2_streams.hh"

#include <algorithm>

namespace xttcp {

Iperf2Endpoint iperf2_endpoint(const std::string& text, bool hide) {
  Iperf2Endpoint e{text, "0"};
  const std::size_t colon = text.rfind(':');
  if (colon != std::string::npos) {
    e.host = text.substr(0, colon);
    e.port = text.substr(colon + 1);
  }
  if (e.host.starts_with('[') && e.host.ends_with(']'))
    e.host = e.host.substr(1, e.host.size() - 2);
  if (hide) e.host = e.host.find(':') != std::string::npos ? "x:x:x:x" : "x.x.x.x";
  return e;
}

std::vector<Iperf2Stream> iperf2_streams(const Result& r) {
  std::vector<Iperf2Stream> streams;
  // A sender runs one thread per stream (-P), so thread i's calls are stream i's.
  const bool one_thread_each = r.role == Role::sender && r.threads.size() == r.connections.size();
  for (std::size_t i = 0; i < r.connections.size(); ++i) {
    const ConnectionStats& c = r.connections[i];
    Iperf2Stream s;
    s.id = static_cast<uint32_t>(i + 1);
    s.local = iperf2_endpoint(c.local, r.spec.iperf2.hide_ips);
    s.remote = iperf2_endpoint(c.remote, r.spec.iperf2.hide_ips);
    s.bytes = c.bytes;
    if (one_thread_each) s.calls = r.threads[i].operations;
    s.tcp = c;
    s.udp = c.iperf2_udp;
    streams.push_back(std::move(s));
  }
  return streams;
}

std::vector<Iperf2Interval> iperf2_intervals(const Result& r) {
  std::vector<Iperf2Interval> out;
  const double step = r.spec.output.interval_s;
  for (std::size_t k = 0; k < r.intervals.size(); ++k) {
    const IntervalSample& sample = r.intervals[k];
    const double from = static_cast<double>(k) * step;
    const double to = std::min(from + step, r.duration_s);
    if (sample.seconds <= 0 || to <= from) continue;
    out.push_back({from, to, sample.bytes, sample.operations, sample.datagrams, sample.lost,
                   static_cast<double>(sample.jitter_ns) / 1e6});
  }
  return out;
}

}  // namespace xttcp
