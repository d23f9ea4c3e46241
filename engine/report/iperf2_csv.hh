// iperf 2.1.8's -y C report (docs/iperf2.md): one comma-separated line per stream and, with -i,
// per interval: timestamp, source address and port, destination address and port, stream id,
// interval, bytes, bits/sec. Source is the sending end (the client), as iperf 2 writes it on
// both ends. Learned by running Debian's iperf 2.1.8 with -y C on loopback.
#pragma once

#include <string>
#include <vector>

#include "engine/result.hh"

namespace xttcp {

std::vector<std::string> iperf2_csv_lines(const Result& result);

struct Iperf2Stream;
// One line's first nine fields: `bytes` of stream `s` (numbered `id`) from `from` to `to`.
std::string iperf2_csv_row(const Result& result, const Iperf2Stream& s, int id, double from,
                           double to, uint64_t bytes);

}  // namespace xttcp
