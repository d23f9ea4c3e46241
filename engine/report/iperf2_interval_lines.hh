// iperf 2.1.8's interval lines, one per -i interval, shared by the live report (printed as each
// interval ends, iperf2_live.hh) and the renderers of a finished Result (the goldens). Intervals
// are measured over every stream together: one stream's line carries its id, several streams'
// the [SUM] id. Formats from running Debian's iperf 2.1.8 with -e -i 1 on loopback and from its
// public source (src/Locale.c); docs/iperf2.md says where xttcp's columns differ.
#pragma once

#include <string>

#include "engine/report/iperf2_streams.hh"
#include "engine/spec.hh"

namespace xttcp {

// The "[ ID] Interval ..." line above the data lines of `role` (sender: the client).
std::string iperf2_data_header(const TestSpec& spec, Role role);

// The line of interval `i` of `role`; `several`: more than one stream ([SUM]).
std::string iperf2_interval_line(const TestSpec& spec, Role role, bool several,
                                 const Iperf2Interval& i);

// -e columns iperf 2 prints after a UDP stream's figures. Client: "  Write/Err  PPS", writes
// being its data datagrams. Server: "  Jitter Lost/Total (loss%) -/-/-/- ms PPS", the latency
// figures left out as iperf 2 prints them when it has none.
std::string iperf2_udp_client_enhanced(uint64_t datagrams, double seconds);
std::string iperf2_udp_server_columns(bool enhanced, double jitter_ms, uint64_t lost,
                                      uint64_t total, double seconds);

}  // namespace xttcp
