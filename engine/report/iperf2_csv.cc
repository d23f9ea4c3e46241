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
  const std::string whole = fmt::format("{:%Y%m%d%H%M%S}", time_point_cast<seconds>(at));
  if (!r.spec.iperf2.enhanced) return whole;
  return fmt::format("{}.{:03}", whole, (at.time_since_epoch() % seconds{1}).count());
}

}  // namespace

std::string iperf2_csv_row(const Result& r, const Iperf2Stream& s, int id, double from, double to,
                           uint64_t bytes) {
  const bool sending = r.role == Role::sender || r.spec.role == Role::sender;
  const Iperf2Endpoint& source = sending ? s.local : s.remote;
  const Iperf2Endpoint& destination = sending ? s.remote : s.local;
  const double seconds = to - from;
  const auto bps =
      seconds > 0 ? static_cast<uint64_t>(static_cast<double>(bytes) * 8 / seconds) : 0;
  return fmt::format("{},{},{},{},{},{},{:.1f}-{:.1f},{},{}", timestamp(r, to), source.host,
                     source.port, destination.host, destination.port, id, from, to, bytes, bps);
}

namespace {

std::string row(const Result& r, const Iperf2Stream& s, int id, double from, double to,
                uint64_t bytes) {
  return iperf2_csv_row(r, s, id, from, to, bytes);
}

}  // namespace

std::vector<std::string> iperf2_csv_lines(const Result& r) {
  std::vector<std::string> out;
  const std::vector<Iperf2Stream> streams = iperf2_streams(r);
  if (streams.empty()) return out;
  // Intervals are measured over every stream together: one stream's are its own; with several,
  // each interval is one row of the sum, id -1 as iperf 2 numbers its sum.
  if (r.spec.iperf2.intervals) {
    const int id = streams.size() > 1 ? -1 : 1;
    for (const Iperf2Interval& i : iperf2_intervals(r))
      out.push_back(row(r, streams.front(), id, i.from, i.to, i.bytes));
  }
  if (!r.spec.iperf2.sum_only || streams.size() == 1)
    for (const Iperf2Stream& s : streams)
      out.push_back(row(r, s, static_cast<int>(s.id), 0, r.duration_s, s.bytes));
  else
    out.push_back(row(r, streams.front(), -1, 0, r.duration_s, r.total_bytes));
  return out;
}

}  // namespace xttcp
