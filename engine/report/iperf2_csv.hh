// iperf 2.1.8's -y C report (docs/iperf2.md): one comma-separated line per stream and, with -i,
// per interval: timestamp, source address and port, destination address and port, stream id,
// interval, bytes, bits/sec. Source is the sending end (the client), as iperf 2 writes it on
// both ends. Learned by running Debian's iperf 2.1.8 with -y C on loopback.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "engine/report/iperf2_streams.hh"
#include "engine/result.hh"

namespace xttcp {

// `intervals_printed`: the interval rows were printed live (iperf2_live.hh) and are left out.
std::vector<std::string> iperf2_csv_lines(const Result& result, bool intervals_printed = false);

// iperf 2's timestamp of `at`, "20261202001540" (with -e ".123" more), UTC.
std::string iperf2_csv_timestamp(std::chrono::system_clock::time_point at, bool enhanced);
// A row's first nine fields: `bytes` of stream `id` from `source` to `destination`, from `from`
// to `to` seconds.
std::string iperf2_csv_fields(const std::string& timestamp, const Iperf2Endpoint& source,
                              const Iperf2Endpoint& destination, int id, double from, double to,
                              uint64_t bytes);
// The five fields a UDP row adds: jitter (ms), lost, total, loss % and out-of-order.
std::string iperf2_csv_udp_fields(double jitter_ms, int64_t lost, int64_t total,
                                  uint64_t out_of_order);
// One line's first nine fields: `bytes` of stream `s` (numbered `id`) from `from` to `to`.
std::string iperf2_csv_row(const Result& result, const Iperf2Stream& s, int id, double from,
                           double to, uint64_t bytes);

}  // namespace xttcp
