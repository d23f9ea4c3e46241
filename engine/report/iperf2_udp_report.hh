// iperf 2.1.8's UDP report (docs/iperf2.md), console and -y C, from the Result. Client: its
// streams' lines, "Sent N datagrams" and each stream's "Server Report:" from the report
// datagram its server sent back. Server: "[ ID] Interval Transfer Bandwidth Jitter Lost/Total
// Datagrams" lines, from the figures it reported to each client. Formats learned by running
// Debian's iperf 2.1.8 -u on loopback and from its public source (src/Locale.c); goldens in
// tests/golden/report/iperf2-udp-*.
#pragma once

#include <string>
#include <vector>

#include "engine/result.hh"

namespace xttcp {

// `intervals_printed`: the console's interval lines were printed live and are left out.
std::vector<std::string> iperf2_udp_report_lines(const Result& result,
                                                 bool intervals_printed = false);

}  // namespace xttcp
