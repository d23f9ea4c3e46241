// iperf 2.1.8's interval lines, one set per -i interval, shared by the live report (printed as
// each interval ends, iperf2_live.hh) and the renderers of a finished Result (the goldens): each
// stream's line, in stream order, when the interval carries each stream's share, then with
// several streams the [SUM] line. Formats from running Debian's iperf 2.1.8 with -e -i 1 on
// loopback and from its public source (src/Locale.c); docs/iperf2.md says where xttcp's columns
// differ.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/report/iperf2_streams.hh"
#include "engine/spec.hh"

namespace xttcp {

// The "[ ID] Interval ..." line above the data lines of `role` (sender: the client).
std::string iperf2_data_header(const TestSpec& spec, Role role);

// The lines of interval `i` of `role`; `several`: more than one stream (a [SUM] line).
std::vector<std::string> iperf2_interval_lines(const TestSpec& spec, Role role, bool several,
                                               const Iperf2Interval& i);

// -e columns iperf 2 prints after a UDP stream's figures. Client: "  Write/Err  PPS", writes
// being its data datagrams. Server: "  Jitter Lost/Total (loss%) -/-/-/- ms PPS", the latency
// figures left out as iperf 2 prints them when it has none.
std::string iperf2_udp_client_enhanced(uint64_t datagrams, double seconds);
std::string iperf2_udp_server_columns(bool enhanced, double jitter_ms, uint64_t lost,
                                      uint64_t total, double seconds);
// -e, a TCP client's stream: "  Write/Err  Rtry  Cwnd/RTT(var)  NetPwr" from `tcp` (TCP_INFO
// when the line ends: retransmits over the line's span, cwnd x mss, RTT), `bytes` over `seconds`.
// `writes`: nullopt where the calls were not counted ("-").
std::string iperf2_tcp_client_enhanced(std::optional<uint64_t> writes,
                                       const ConnectionInterval& tcp, uint64_t bytes,
                                       double seconds);
// -e, a TCP server's: "  Reads=Dist", the reads and their 8 bins.
std::string iperf2_reads_column(const ReadSizes& reads);

}  // namespace xttcp
