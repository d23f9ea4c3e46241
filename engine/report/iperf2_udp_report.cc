#include "engine/report/iperf2_udp_report.hh"

#include <algorithm>

#include <fmt/format.h>

#include "engine/report/iperf2_console.hh"
#include "engine/report/iperf2_csv.hh"
#include "engine/report/iperf2_interval_lines.hh"
#include "engine/report/iperf2_streams.hh"

namespace xttcp {

namespace {

double percent(uint64_t lost, uint64_t total) {
  return total > 0 ? 100.0 * static_cast<double>(lost) / static_cast<double>(total) : 0;
}

// A stream's line of its server's report: "  0.012 ms 0/1314 (0%)" after its figures (with -e,
// the enhanced columns too).
std::string server_line(const std::string& id, const Iperf2UdpStream& u, const Iperf2Options& o) {
  return iperf2_figures(id, 0, u.seconds, static_cast<double>(u.bytes), o.format) +
         iperf2_udp_server_columns(o.enhanced, u.jitter_ms, u.lost, u.datagrams, u.seconds);
}

std::string out_of_order(const std::string& id, double seconds, uint64_t count) {
  return fmt::format("{} {:.4f}-{:.4f} sec  {} datagrams received out-of-order", id, 0.0, seconds,
                     count);
}

std::vector<std::string> connection_lines(const Result& r,
                                          const std::vector<Iperf2Stream>& streams) {
  std::vector<std::string> out;
  if (r.spec.iperf2.excludes('C')) return out;
  for (const Iperf2Stream& s : streams)
    out.push_back(fmt::format("{} local {} port {} connected with {} port {}",
                              iperf2_stream_id(s.id), s.local.host, s.local.port, s.remote.host,
                              s.remote.port));
  return out;
}

std::vector<std::string> client_lines(const Result& r, const std::vector<Iperf2Stream>& streams,
                                      bool intervals_printed) {
  const Iperf2Options& o = r.spec.iperf2;
  std::vector<std::string> out = connection_lines(r, streams);
  if (o.excludes('D')) return out;
  const bool several = streams.size() > 1;
  const uint64_t datagram = std::max<uint64_t>(r.spec.workload.send_buffer, 1);
  out.push_back(iperf2_data_header(r.spec, Role::sender));
  if (o.intervals && !intervals_printed)
    for (const Iperf2Interval& i : iperf2_intervals(r))
      for (std::string& line : iperf2_interval_lines(r.spec, Role::sender, several, i))
        out.push_back(std::move(line));
  // -e Write: the data datagrams (the FIN is not a write of the test).
  auto enhanced = [&](uint64_t bytes) {
    return o.enhanced ? iperf2_udp_client_enhanced(bytes / datagram, r.duration_s) : "";
  };
  uint64_t sent_total = 0;
  for (const Iperf2Stream& s : streams) {
    // Sent: the data datagrams and the FIN, the total the server counts.
    const uint64_t sent = s.bytes / datagram + 1;
    sent_total += sent;
    if (o.sum_only && several) continue;
    out.push_back(iperf2_figures(iperf2_stream_id(s.id), 0, r.duration_s,
                                 static_cast<double>(s.bytes), o.format) +
                  enhanced(s.bytes));
    out.push_back(fmt::format("{} Sent {} datagrams", iperf2_stream_id(s.id), sent));
  }
  if (several) {
    out.push_back(
        iperf2_figures("[SUM]", 0, r.duration_s, static_cast<double>(r.total_bytes), o.format) +
        enhanced(r.total_bytes));
    out.push_back(fmt::format("[SUM] Sent {} datagrams", sent_total));
  }
  for (const Iperf2Stream& s : streams) {
    if (!s.udp) continue;
    const std::string id = iperf2_stream_id(s.id);
    out.push_back(id + " Server Report:");
    out.push_back(iperf2_data_header(r.spec, Role::receiver));
    out.push_back(server_line(id, *s.udp, o));
    if (s.udp->out_of_order > 0)
      out.push_back(out_of_order(id, s.udp->seconds, s.udp->out_of_order));
  }
  return out;
}

std::vector<std::string> server_lines(const Result& r, const std::vector<Iperf2Stream>& streams,
                                      bool intervals_printed) {
  const Iperf2Options& o = r.spec.iperf2;
  std::vector<std::string> out = connection_lines(r, streams);
  if (o.excludes('D')) return out;
  const bool several = streams.size() > 1;
  out.push_back(iperf2_data_header(r.spec, Role::receiver));
  if (o.intervals && !intervals_printed)
    for (const Iperf2Interval& i : iperf2_intervals(r))
      for (std::string& line : iperf2_interval_lines(r.spec, Role::receiver, several, i))
        out.push_back(std::move(line));
  Iperf2UdpStream sum;
  for (const Iperf2Stream& s : streams) {
    if (!s.udp) continue;
    sum.bytes += s.udp->bytes;
    sum.seconds = std::max(sum.seconds, s.udp->seconds);
    sum.datagrams += s.udp->datagrams;
    sum.lost += s.udp->lost;
    if (o.sum_only && several) continue;
    const std::string id = iperf2_stream_id(s.id);
    out.push_back(server_line(id, *s.udp, o));
    if (s.udp->out_of_order > 0)
      out.push_back(out_of_order(id, s.udp->seconds, s.udp->out_of_order));
  }
  if (several)
    out.push_back(
        iperf2_figures("[SUM]", 0, sum.seconds, static_cast<double>(sum.bytes), o.format) +
        fmt::format("   {}/{} ({:.2g}%)", sum.lost, sum.datagrams,
                    percent(sum.lost, sum.datagrams)));
  return out;
}

// -y C: iperf 2.1.8's UDP rows add jitter (ms), lost, total, loss % and out-of-order. A
// client's interval rows carry its sent datagrams; its whole-test row -1 for the total, as
// 2.1.8 prints it (the server's report is not printed in CSV).
std::string udp_fields(double jitter_ms, int64_t lost, int64_t total, uint64_t out_of_order) {
  return iperf2_csv_udp_fields(jitter_ms, lost, total, out_of_order);
}

std::vector<std::string> csv_lines(const Result& r, const std::vector<Iperf2Stream>& streams,
                                   bool intervals_printed) {
  std::vector<std::string> out;
  if (streams.empty()) return out;
  const bool client = r.role == Role::sender || r.spec.role == Role::sender;
  const int interval_id = streams.size() > 1 ? -1 : 1;
  // A row's UDP fields: a client's carry its datagrams sent, a server's its accounting.
  auto figures = [client](double jitter_ms, uint64_t datagrams, uint64_t lost,
                          uint64_t out_of_order) {
    return client ? udp_fields(0, 0, static_cast<int64_t>(datagrams), 0)
                  : udp_fields(jitter_ms, static_cast<int64_t>(lost),
                               static_cast<int64_t>(datagrams + lost), out_of_order);
  };
  // Each stream's row of each interval, as iperf 2.1.8 writes them (no sum row); an interval
  // without each stream's share is one row of the sum (id -1).
  if (r.spec.iperf2.intervals && !intervals_printed)
    for (const Iperf2Interval& i : iperf2_intervals(r)) {
      if (i.streams.empty()) {
        out.push_back(iperf2_csv_row(r, streams.front(), interval_id, i.from, i.to, i.bytes) +
                      figures(i.jitter_ms, i.datagrams, i.lost, 0));
        continue;
      }
      for (const Iperf2StreamShare& share : i.streams) {
        const Iperf2Stream* s = iperf2_stream_by_id(streams, share.id);
        if (s == nullptr) continue;
        const StreamInterval& f = share.figures;
        out.push_back(
            iperf2_csv_row(r, *s, static_cast<int>(share.id), i.from, i.to, f.bytes) +
            figures(static_cast<double>(f.jitter_ns) / 1e6, f.datagrams, f.lost, f.reordered));
      }
    }
  for (const Iperf2Stream& s : streams) {
    if (client) {
      out.push_back(iperf2_csv_row(r, s, static_cast<int>(s.id), 0, r.duration_s, s.bytes) +
                    udp_fields(0, 0, -1, 0));
    } else if (s.udp) {
      out.push_back(iperf2_csv_row(r, s, static_cast<int>(s.id), 0, s.udp->seconds, s.udp->bytes) +
                    udp_fields(s.udp->jitter_ms, static_cast<int64_t>(s.udp->lost),
                               static_cast<int64_t>(s.udp->datagrams), s.udp->out_of_order));
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> iperf2_udp_report_lines(const Result& r, bool intervals_printed) {
  const std::vector<Iperf2Stream> streams = iperf2_streams(r);
  if (r.spec.iperf2.csv) return csv_lines(r, streams, intervals_printed);
  return r.role == Role::sender ? client_lines(r, streams, intervals_printed)
                                : server_lines(r, streams, intervals_printed);
}

}  // namespace xttcp
