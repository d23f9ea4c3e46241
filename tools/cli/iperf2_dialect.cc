// The iperf2 dialect: iperf 2.1.8's command line (its `iperf --help`, docs/iperf2.md) read
// getopt-style into the spec, with iperf 2's defaults (port 5001, 10 s, one stream, 128 KB
// buffers). What xttcp does not do is refused in
// one line naming the option. Rows only record; the rules between options run at the end, so
// option order never matters.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <span>

#include <fmt/format.h>

#include "base/units.hh"
#include "engine/iperf2/udp_datagram.hh"
#include "tools/cli/command.hh"
#include "tools/cli/congestion_name.hh"
#include "tools/cli/iperf2_grammar.hh"
#include "topology/placement.hh"

namespace xttcp {

namespace {

using iperf2_cli::Arg;
using iperf2_cli::Iperf2Parse;
using iperf2_cli::OptionRow;

// iperf 2's numbers: a lowercase suffix k/m/g is 10^3-based, uppercase 2^10-based.
Expected<double> iperf2_number(std::string_view text) {
  if (text.empty()) return fail("a number is needed");
  double scale = 1;
  const char last = text.back();
  if (std::isalpha(static_cast<unsigned char>(last))) {
    switch (last) {
      case 'k': scale = 1e3; break;
      case 'm': scale = 1e6; break;
      case 'g': scale = 1e9; break;
      case 'K': scale = 1024.0; break;
      case 'M': scale = 1024.0 * 1024; break;
      case 'G': scale = 1024.0 * 1024 * 1024; break;
      default: return fail(fmt::format("'{}' has a suffix other than k, m, g, K, M or G", text));
    }
    text.remove_suffix(1);
  }
  if (text.empty() || text.find_first_not_of("0123456789.") != std::string_view::npos ||
      std::count(text.begin(), text.end(), '.') > 1 || text == ".")
    return fail(fmt::format("'{}' is not a number", std::string(text)));
  return std::stod(std::string(text)) * scale;
}

Expected<uint64_t> whole(std::string_view text, uint64_t min, uint64_t max) {
  auto value = parse_count(text, max);
  if (!value) return fail(fmt::format("'{}' is not a whole number from {} to {}", text, min, max));
  if (*value < min) return fail(fmt::format("'{}' is below {}", text, min));
  return value;
}

Status set_server(Iperf2Parse& p, const std::string&) {
  p.server = true;
  return ok();
}
Status set_client(Iperf2Parse& p, const std::string& host) {
  if (host.empty()) return fail("needs the server's host name or address");
  p.client = host;
  return ok();
}
Status set_parallel(Iperf2Parse& p, const std::string& v) {
  auto n = whole(v, 1, limits::max_threads_per_port);
  if (!n) return n.error();
  p.parallel = static_cast<uint32_t>(*n);
  return ok();
}
Status set_time(Iperf2Parse& p, const std::string& v) {
  auto n = whole(v, 1, 86400 * 365);
  if (!n)
    return fail(
        fmt::format("'{}' is not a whole number of seconds from 1 (xttcp times "
                    "tests in whole seconds)",
                    v));
  p.time_s = static_cast<uint32_t>(*n);
  return ok();
}
Status set_interval(Iperf2Parse& p, const std::string& v) {
  auto s = parse_seconds(v, false);
  if (!s) return s.error();
  if (*s < 0.01) return fail("the interval must be at least 0.01 s");
  p.spec.output.interval_s = *s;
  p.spec.iperf2.intervals = true;
  return ok();
}
Status set_len(Iperf2Parse& p, const std::string& v) {
  auto n = iperf2_number(v);
  if (!n) return n.error();
  if (*n < 1 || *n > static_cast<double>(limits::max_buffer_bytes))
    return fail(fmt::format("'{}' is not a length from 1 byte to 1G", v));
  p.len = static_cast<uint32_t>(*n);
  return ok();
}
Status set_window(Iperf2Parse& p, const std::string& v) {
  auto n = iperf2_number(v);
  if (!n) return n.error();
  if (*n < 1 || *n > 2147483647.0) return fail(fmt::format("'{}' is not a size from 1 to 2G", v));
  p.spec.io.socket_recv_buffer = p.spec.io.socket_send_buffer = static_cast<int64_t>(*n);
  return ok();
}
Status set_port(Iperf2Parse& p, const std::string& v) {
  if (v.find('-') != std::string::npos)
    return fail("port ranges are not served (xttcp listens on one port)");
  auto n = whole(v, 1, 65535);
  if (!n) return n.error();
  p.spec.layout.base_port = static_cast<uint16_t>(*n);
  return ok();
}
Status set_bandwidth(Iperf2Parse& p, const std::string& v) {
  if (v.ends_with("pps")) return fail("packets per second are not served (give bits/s)");
  auto n = iperf2_number(v);
  if (!n) return n.error();
  if (*n < 1) return fail(fmt::format("'{}' is not a rate of at least 1 bit/s", v));
  p.rate_bps = static_cast<uint64_t>(*n);
  return ok();
}
Status set_fq_rate(Iperf2Parse& p, const std::string& v) {
  auto n = iperf2_number(v);
  if (!n) return n.error();
  if (*n < 8) return fail(fmt::format("'{}' is not a rate of at least 8 bits/s", v));
  p.fq_rate_bps = static_cast<uint64_t>(*n);
  return ok();
}
Status set_enhanced(Iperf2Parse& p, const std::string&) {
  p.spec.iperf2.enhanced = true;
  return ok();
}
Status set_bind(Iperf2Parse& p, const std::string& v) {
  if (v.find('%') != std::string::npos)
    return fail("binding to a device (%dev) is not served; give the address alone");
  const bool bracketed = v.starts_with('[');
  const std::size_t colons = static_cast<std::size_t>(std::count(v.begin(), v.end(), ':'));
  if ((!bracketed && colons == 1) || (bracketed && v.find("]:") != std::string::npos))
    return fail("a source port (host:port) is not served; give the address alone");
  std::string host = v;
  if (bracketed) host = v.substr(1, v.size() >= 2 ? v.size() - 2 : 0);
  if (host.empty()) return fail("needs an address");
  p.bind = host;
  return ok();
}
Status set_format(Iperf2Parse& p, const std::string& v) {
  if (v.size() != 1 || std::string_view("aAbBkKmMgG").find(v[0]) == std::string_view::npos)
    return fail(fmt::format("'{}' is not one of a A b B k K m M g G", v));
  p.spec.iperf2.format = v[0];
  return ok();
}
Status set_nodelay(Iperf2Parse& p, const std::string&) {
  p.spec.io.no_delay = true;
  return ok();
}
Status set_ipv6(Iperf2Parse& p, const std::string&) {
  p.spec.layout.ipv6 = true;
  return ok();
}
Status set_exclude(Iperf2Parse& p, const std::string& v) {
  std::string letters;
  for (char c : v) {
    const char upper = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (std::string_view("CDMSV").find(upper) == std::string_view::npos)
      return fail(fmt::format("'{}' is not a report letter (C, D, M, S or V)", c));
    letters += upper;
  }
  p.spec.iperf2.exclude = letters;
  return ok();
}
Status set_report_style(Iperf2Parse& p, const std::string& v) {
  if (v != "C" && v != "c") return fail(fmt::format("'{}' is not C (comma-separated values)", v));
  p.spec.iperf2.csv = true;
  return ok();
}
Status set_daemon(Iperf2Parse& p, const std::string&) {
  p.spec.control.daemonize = true;
  return ok();
}
Status set_single_client(Iperf2Parse&, const std::string&) {
  return ok();  // xttcp's server serves one test at a time anyway
}
Status set_udp(Iperf2Parse& p, const std::string&) {
  p.udp = true;
  return ok();
}
Status set_compatibility(Iperf2Parse& p, const std::string&) {
  p.spec.iperf2.compatibility = true;
  return ok();
}
Status set_sum_only(Iperf2Parse& p, const std::string&) {
  p.spec.iperf2.sum_only = true;
  return ok();
}
Status set_hide_ips(Iperf2Parse& p, const std::string&) {
  p.spec.iperf2.hide_ips = true;
  return ok();
}
Status set_help(Iperf2Parse& p, const std::string&) {
  p.action = Action::help;
  return ok();
}
Status set_version(Iperf2Parse& p, const std::string&) {
  p.action = Action::version;
  return ok();
}
// xttcp's own long options, the same as in the other dialects.
Status set_backend(Iperf2Parse& p, const std::string& v) {
  if (v.empty()) return fail("needs a backend name");
  p.spec.backend = v;
  return ok();
}
Status set_json(Iperf2Parse& p, const std::string& v) {
  if (v.empty()) return fail("needs a file name");
  p.spec.output.native_json_file = v;
  return ok();
}
Status set_placement(Iperf2Parse& p, const std::string& v) {
  Expected<PlacementMode> mode = parse_placement_mode(v);
  if (!mode)
    return fail(fmt::format("'{}' is not one of spread, numa, irq, irq-sibling, avoid-irq", v));
  p.spec.placement.mode = *mode;
  return ok();
}
Status set_nic(Iperf2Parse& p, const std::string& v) {
  if (v.empty()) return fail("needs an interface name");
  p.spec.placement.nic = v;
  return ok();
}
Status set_threads(Iperf2Parse& p, const std::string& v) {
  auto n = whole(v, 1, 1024);
  if (!n) return n.error();
  p.spec.layout.worker_threads = static_cast<uint32_t>(*n);
  return ok();
}
Status set_pin(Iperf2Parse& p, const std::string&) {
  p.spec.layout.pin_workers = true;
  return ok();
}
Status set_congestion(Iperf2Parse& p, const std::string& v) {
  if (Status named = check_congestion_name(v); !named) return named;
  p.spec.io.congestion = v;
  return ok();
}

constexpr OptionRow rows[] = {
    {'s', "server", Arg::none, set_server},
    {'c', "client", Arg::required, set_client},
    {'P', "parallel", Arg::required, set_parallel},
    {'t', "time", Arg::required, set_time},
    {'i', "interval", Arg::required, set_interval},
    {'l', "len", Arg::required, set_len},
    {'w', "window", Arg::required, set_window},
    {'p', "port", Arg::required, set_port},
    {'b', "bandwidth", Arg::required, set_bandwidth},
    {0, "fq-rate", Arg::required, set_fq_rate},
    {'u', "udp", Arg::none, set_udp},
    {'e', "enhanced", Arg::none, set_enhanced},
    {0, "enhancedreports", Arg::none, set_enhanced},
    {'B', "bind", Arg::required, set_bind},
    {'f', "format", Arg::required, set_format},
    {'N', "nodelay", Arg::none, set_nodelay},
    {'Z', "tcp-congestion", Arg::required, set_congestion},
    {'V', "ipv6_domain", Arg::none, set_ipv6},
    {'x', "reportexclude", Arg::required, set_exclude},
    {'y', "reportstyle", Arg::required, set_report_style},
    {'D', "daemon", Arg::none, set_daemon},
    {'1', "singleclient", Arg::none, set_single_client},
    {'C', "compatibility", Arg::none, set_compatibility},
    {0, "sum-only", Arg::none, set_sum_only},
    {0, "hide-ips", Arg::none, set_hide_ips},
    {'h', "help", Arg::none, set_help},
    {'v', "version", Arg::none, set_version},
    {0, "backend", Arg::required, set_backend},
    {0, "json", Arg::required, set_json},
    {0, "placement", Arg::required, set_placement},
    {0, "nic", Arg::required, set_nic},
    {0, "threads", Arg::required, set_threads},
    {0, "pin", Arg::none, set_pin},
};

// Every other option iperf 2.1.8 documents, and why xttcp does not run it.
constexpr const char* one_way =
    "xttcp's iperf2 dialect tests one direction: run xttcp as the "
    "client at the other end instead";
constexpr iperf2_cli::RefusedRow refused[] = {
    {'d', "dualtest", Arg::none, one_way},
    {'r', "tradeoff", Arg::none, one_way},
    {'R', "reverse", Arg::none, one_way},
    {0, "full-duplex", Arg::none, one_way},
    {'L', "listenport", Arg::required, one_way},
    {'n', "num", Arg::required, "xttcp's iperf2 tests are timed (-t), not counted in bytes"},
    {'F', "fileinput", Arg::required, "xttcp sends its own buffers, not a file"},
    {'I', "stdin", Arg::none, "xttcp sends its own buffers, not standard input"},
    {'M', "mss", Arg::required, "xttcp does not set TCP_MAXSEG"},
    {'m', "print_mss", Arg::none, "xttcp does not print the MSS"},
    {'S', "tos", Arg::required, "xttcp does not set IP_TOS"},
    {'T', "ttl", Arg::required, "multicast is not served"},
    {'H', "ssm-host", Arg::required, "multicast is not served"},
    {'o', "output", Arg::required, "xttcp prints the report on standard output (redirect it)"},
    {'z', "realtime", Arg::none, "xttcp does not change its scheduling class"},
    {'U', "single_udp", Arg::none, "xttcp's UDP server threads are its own (--threads)"},
    {'X', "peer-detect", Arg::none, "xttcp does not exchange versions with an iperf 2 peer"},
    {0, "permit-key", Arg::required, "permit keys are not served"},
    {0, "permit-key-timeout", Arg::required, "permit keys are not served"},
    {0, "histograms", Arg::none, "latency histograms are not served (see xttcp --rr)"},
    {0, "udp-histogram", Arg::required, "latency histograms are not served"},
    {0, "tcp-rx-window-clamp", Arg::required, "xttcp does not clamp the receive window"},
    {0, "tap-dev", Arg::required, "TAP devices are not served"},
    {0, "sum-dstip", Arg::none, "xttcp sums a test by its client"},
    {0, "bounceback", Arg::none, "bounce-back tests are not served (see xttcp --rr)"},
    {0, "bounceback-congest", Arg::none, "bounce-back tests are not served"},
    {0, "bounceback-hold", Arg::required, "bounce-back tests are not served"},
    {0, "bounceback-period", Arg::required, "bounce-back tests are not served"},
    {0, "bounceback-no-quickack", Arg::none, "bounce-back tests are not served"},
    {0, "connect-only", Arg::none, "connect-only tests are not served"},
    {0, "connect-retries", Arg::required, "xttcp retries refused connects for --connect-timeout"},
    {0, "ipg", Arg::required, "isochronous traffic is not served"},
    {0, "isochronous", Arg::required, "isochronous traffic is not served"},
    {0, "incr-dstip", Arg::none, "xttcp's streams all go to one address"},
    {0, "incr-dstport", Arg::none, "xttcp's streams all go to one port"},
    {0, "incr-srcip", Arg::none, "xttcp's streams all leave from one address"},
    {0, "incr-srcport", Arg::none, "xttcp's streams take ephemeral source ports"},
    {0, "local-only", Arg::none, "xttcp does not set SO_DONTROUTE"},
    {0, "near-congestion", Arg::optional, "write delays by RTT are not served"},
    {0, "no-connect-sync", Arg::none, "xttcp starts every stream once all are connected"},
    {0, "no-udp-fin", Arg::none,
     "xttcp's UDP client always ends with iperf 2's FIN and waits for the server's report"},
    {0, "tcp-quickack", Arg::none, "xttcp does not set TCP_QUICKACK"},
    {0, "tcp-write-prefetch", Arg::required, "xttcp does not set TCP_NOTSENT_LOWAT"},
    {0, "tcp-write-times", Arg::none,
     "write times are not measured (see -lm in the Windows dialect)"},
    {0, "trip-times", Arg::none, "one-way trip times are not measured"},
    {0, "txdelay-time", Arg::required, "delayed starts are not served"},
    {0, "txstart-time", Arg::required, "scheduled starts are not served"},
};

constexpr uint64_t udp_default_rate_bps = 1024 * 1024;  // iperf 2's -u without -b

// -u: iperf 2's UDP (engine/iperf2/udp_datagram.hh) at both ends, its datagram size (-l, by
// default 1470 bytes, 1450 over IPv6) and what does not go with it.
Status apply_udp(Iperf2Parse& p) {
  TestSpec& spec = p.spec;
  spec.workload.protocol = Protocol::udp;
  spec.workload.udp_payload = UdpPayload::iperf2;
  const uint32_t largest = spec.layout.ipv6 ? 65535 - 8 : limits::max_udp_send_size;
  const uint32_t len = p.len.value_or(spec.layout.ipv6 ? 1450 : 1470);
  if (len < iperf2::udp_head_size || len > largest)
    return fail(fmt::format("-l: with -u a datagram holds {} to {} bytes (iperf 2's head is {})",
                            iperf2::udp_head_size, largest, iperf2::udp_head_size));
  spec.workload.send_buffer = spec.workload.recv_buffer = len;
  spec.iperf2.len_given = p.len.has_value();
  if (spec.iperf2.compatibility)
    return fail("-C: xttcp's UDP always sends iperf 2's header (drop -C)");
  if (spec.io.no_delay) return fail("-N: TCP_NODELAY is for TCP only (drop -N or -u)");
  if (!spec.io.congestion.empty())
    return fail("-Z: a congestion control is for TCP only (drop -Z or -u)");
  return ok();
}

// The rules between options, once the whole line is read.
Expected<Command> finish(Iperf2Parse& p) {
  Command command;
  command.action = p.action;
  if (p.action != Action::run) return command;
  TestSpec& spec = p.spec;
  if (p.server && p.client)
    return fail("-s and -c cannot be used together (a run is either server or client)");
  if (!p.server && !p.client) return fail("-s or -c HOST is needed (see 'iperf --help')");
  if (p.udp) {
    if (Status udp = apply_udp(p); !udp) return udp.error();
  } else {
    const uint32_t len = p.len.value_or(128u * 1024);
    spec.workload.send_buffer = spec.workload.recv_buffer = len;
  }
  spec.layout.ports = 1;
  spec.layout.conns_per_thread = 1;
  if (p.server) {
    if (p.time_s)
      return fail("-t: xttcp's iperf2 server serves until Ctrl+C (give -t to the client)");
    if (p.parallel)
      return fail("-P: the client says how many streams it sends (give -P to the client)");
    if (p.rate_bps)
      return fail("-b: xttcp's server reads as fast as it can (give -b to the client)");
    if (p.fq_rate_bps) return fail("--fq-rate: give it to the client");
    spec.role = Role::receiver;
    // Each stream's own interval lines (-i) and -e's Reads=Dist: the data path counts each
    // connection's reads and their sizes, only then.
    spec.io.count_reads = !p.udp && (spec.iperf2.enhanced || spec.iperf2.intervals);
    spec.layout.address = p.bind.value_or("");
    spec.layout.threads_per_port = 1;
    // A test lasts until its client closed every stream (engine/run/control_plane/iperf2_receiver).
    spec.workload.duration_s = 0;
  } else {
    spec.role = Role::sender;
    spec.layout.address = *p.client;
    if (p.bind) spec.layout.source_address = *p.bind;
    spec.layout.threads_per_port = p.parallel.value_or(1);
    // A thread per TCP stream, as iperf 2 runs them: each blocks in its own send() (bench/
    // README.md, "Google Cloud's iperf2 commands, ..."); --threads N multiplexes them instead.
    if (!p.udp && !spec.layout.worker_threads)
      spec.layout.worker_threads = spec.layout.threads_per_port;
    spec.workload.duration_s = p.time_s.value_or(10);
    spec.control.no_sync = true;  // iperf 2 has no control connection: the streams are the test
    // iperf 2's -b and --fq-rate are per stream; xttcp's over every stream.
    const uint64_t streams = spec.layout.threads_per_port;
    // UDP is paced at 1 Mbit/s (2^20 bits/s) a stream unless -b says otherwise.
    spec.workload.rate_limit_bps = p.rate_bps.value_or(p.udp ? udp_default_rate_bps : 0) * streams;
    spec.workload.fq_rate_limit_bps = p.fq_rate_bps.value_or(0) * streams;
  }
  if (spec.layout.ipv6 && spec.role == Role::receiver && spec.layout.address.empty())
    spec.layout.address = "::";
  if (!spec.iperf2.intervals) spec.output.interval_s = 1.0;  // the run's clock ticks; no lines
  spec.output.quiet = true;                                  // no NTTTCP real-time lines
  command.spec = spec;
  return command;
}

}  // namespace

Expected<Command> parse_iperf2_dialect(const std::vector<std::string>& args) {
  Iperf2Parse parse;
  parse.spec.dialect = Dialect::iperf2;
  parse.spec.layout.base_port = 5001;
  if (Status read = iperf2_cli::read_line(args, rows, refused, parse); !read) return read.error();
  return finish(parse);
}

}  // namespace xttcp
