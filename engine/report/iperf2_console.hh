// iperf 2.1.8's console (docs/iperf2.md), from the Result: the settings banner, the
// "[  1] local ... connected with ..." lines, "[ ID] Interval Transfer Bandwidth" with the
// interval and summary lines and, with several streams, [SUM]; the enhanced (-e) columns; and
// with -y C the comma-separated lines alone. Formats learned by running Debian's iperf 2.1.8 on
// loopback and from its public source (src/Reporter.c, include/report_*.h); goldens in
// tests/golden/report/iperf2_*.
#pragma once

#include <string>
#include <vector>

#include "engine/result.hh"
#include "engine/spec.hh"

namespace xttcp {

// The banner a run prints before its test ("Server listening on TCP port 5001" or "Client
// connecting to HOST, TCP port 5001" between dashed lines); empty with -y C or -x S.
std::vector<std::string> iperf2_banner_lines(const TestSpec& spec);

// The report of a finished test: every line, each without its "\n". `intervals_printed`: the
// console's interval lines were printed live (iperf2_live.hh) and are left out here.
std::vector<std::string> iperf2_report_lines(const Result& result, bool intervals_printed = false);

// iperf 2's number form (its byte_snprintf): `value` in bytes, shown as bytes or bits in
// `format` (a A b B k K m M g G t T), three significant digits, "1.93 GBytes" / "16.4 Gbits".
std::string iperf2_amount(double bytes, char format);
// "[  1]" for stream 1.
std::string iperf2_stream_id(uint32_t id);
// "<id> 0.0000-1.0000 sec  <transfer>  <bandwidth>/sec": `bytes` from `from` to `to` seconds.
std::string iperf2_figures(const std::string& id, double from, double to, double bytes,
                           char format);

}  // namespace xttcp
