#include "engine/report/iperf2_csv.hh"

#include <chrono>
#include <cstdio>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "engine/report/iperf2_streams.hh"

namespace xttcp {

namespace {

// iperf 2's timestamp, "20261202001540" (with -e ".123" more), `offset_s` after the window's
// start ("2026-12-02T00:15:40Z"); UTC, as the start time is kept.
std::string timestamp(const Result& r, double offset_s) {
  int year = 0;
  unsigned month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (std::sscanf(r.start_time.c_str(), "%d-%u-%uT%u:%u:%u", &year, &month, &day, &hour, &minute,
                  &second) != 6)
    return "0";
  using namespace std::chrono;
  const sys_days date{std::chrono::year{year} / std::chrono::month{month} / std::chrono::day{day}};
  const auto at =
      time_point_cast<milliseconds>(date + hours{hour} + minutes{minute} + seconds{second}) +
      milliseconds(static_cast<int64_t>(offset_s * 1000));
  return iperf2_csv_timestamp(at, r.spec.iperf2.enhanced);
}

}  // namespace

std::string iperf2_csv_timestamp(std::chrono::system_clock::time_point at_, bool enhanced) {
  using namespace std::chrono;
  const auto at = time_point_cast<milliseconds>(at_);
  const std::string whole = fmt::format("{:%Y%m%d%H%M%S}", time_point_cast<seconds>(at));
  if (!enhanced) return whole;
  return fmt::format("{}.{:03}", whole, (at.time_since_epoch() % seconds{1}).count());
}

std::string iperf2_csv_fields(const std::string& timestamp, const Iperf2Endpoint& source,
                              const Iperf2Endpoint& destination, int id, double from, double to,
                              uint64_t bytes) {
  const double seconds = to - from;
  const auto bps =
      seconds > 0 ? static_cast<uint64_t>(static_cast<double>(bytes) * 8 / seconds) : 0;
  return fmt::format("{},{},{},{},{},{},{:.1f}-{:.1f},{},{}", timestamp, source.host, source.port,
                     destination.host, destination.port, id, from, to, bytes, bps);
}

std::string iperf2_csv_udp_fields(double jitter_ms, int64_t lost, int64_t total,
                                  uint64_t out_of_order) {
  const double loss =
      total != 0 ? 100.0 * static_cast<double>(lost) / static_cast<double>(total) : 0;
  return fmt::format(",{:.3f},{},{},{:.3f},{}", jitter_ms, lost, total, loss, out_of_order);
}

std::string iperf2_csv_row(const Result& r, const Iperf2Stream& s, int id, double from, double to,
                           uint64_t bytes) {
  const bool sending = r.role == Role::sender || r.spec.role == Role::sender;
  const Iperf2Endpoint& source = sending ? s.local : s.remote;
  const Iperf2Endpoint& destination = sending ? s.remote : s.local;
  return iperf2_csv_fields(timestamp(r, to), source, destination, id, from, to, bytes);
}

namespace {

std::string row(const Result& r, const Iperf2Stream& s, int id, double from, double to,
                uint64_t bytes) {
  return iperf2_csv_row(r, s, id, from, to, bytes);
}

}  // namespace

std::vector<std::string> iperf2_csv_lines(const Result& r, bool intervals_printed) {
  std::vector<std::string> out;
  const std::vector<Iperf2Stream> streams = iperf2_streams(r);
  if (streams.empty()) return out;
  // Each stream's row of each interval, as iperf 2.1.8 writes them (no sum row); an interval
  // without each stream's share is one row of the sum, id -1 as iperf 2 numbers its sum.
  if (r.spec.iperf2.intervals && !intervals_printed)
    for (const Iperf2Interval& i : iperf2_intervals(r)) {
      if (i.streams.empty()) {
        out.push_back(row(r, streams.front(), streams.size() > 1 ? -1 : 1, i.from, i.to, i.bytes));
        continue;
      }
      for (const Iperf2StreamShare& share : i.streams)
        if (const Iperf2Stream* s = iperf2_stream_by_id(streams, share.id))
          out.push_back(row(r, *s, static_cast<int>(share.id), i.from, i.to, share.figures.bytes));
    }
  if (!r.spec.iperf2.sum_only || streams.size() == 1)
    for (const Iperf2Stream& s : streams)
      out.push_back(row(r, s, static_cast<int>(s.id), 0, r.duration_s, s.bytes));
  else
    out.push_back(row(r, streams.front(), -1, 0, r.duration_s, r.total_bytes));
  return out;
}

}  // namespace xttcp
