#include "engine/report/interval_csv.hh"

#include <fmt/format.h>

namespace xttcp {

std::string render_interval_csv(const Result& r) {
  const bool udp = r.udp.has_value();
  std::string out = "start_s,seconds,bytes,throughput_bps";
  if (udp) out += ",datagrams,lost,reordered,jitter_ms";
  out += '\n';
  for (const IntervalSample& s : r.intervals) {
    const double bps = s.seconds > 0 ? static_cast<double>(s.bytes) * 8 / s.seconds : 0;
    out += fmt::format("{:.6f},{:.6f},{},{:.0f}", s.start_s, s.seconds, s.bytes, bps);
    if (udp)
      out += fmt::format(",{},{},{},{:.3f}", s.datagrams, s.lost, s.reordered,
                         static_cast<double>(s.jitter_ns) / 1e6);
    out += '\n';
  }
  return out;
}

}  // namespace xttcp
