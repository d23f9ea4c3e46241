// The iperf3 dialect: iperf3 3.12's command line (tests/reference/iperf3-3.12/README.md 9,
// docs/iperf3.md) read getopt-style into the spec. Its server takes every test setting from
// the client over the wire (a client's option given to it is refused, as 3.12 refuses it);
// what it keeps for itself is where it listens and how it reports.
// What xttcp does not do (yet) is refused in one line naming the option and why. Rows only
// record; the rules between options run at the end, so option order never matters.
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "base/units.hh"
#include "engine/iperf3/control_wire.hh"
#include "engine/iperf3/parameters.hh"
#include "engine/iperf3/udp_datagram.hh"
#include "engine/net/address.hh"
#include "tools/cli/command.hh"
#include "tools/cli/option_binders.hh"
#include "tools/cli/option_rows.hh"

namespace xttcp {

namespace {

using option_rows::Arg;

struct Iperf3Parse {
  TestSpec spec;
  Action action = Action::run;
  bool server = false;                // -s
  std::optional<std::string> client;  // -c HOST
  std::optional<std::string> bind;    // -B
  bool ipv4 = false, ipv6 = false;    // -4, -6
  std::string client_only;            // the first option given that only a client takes
  std::vector<std::string> ends;      // -t, -n, -k as given: one at most
  bool length_given = false;          // -l
  bool rate_given = false;            // -b
};
using OptionRow = option_rows::OptionRow<Iperf3Parse>;

// iperf3's numbers (its unit_atof and unit_atof_rate): a fraction, then one of k m g t in
// either case, 1024-based for sizes and 1000-based for rates.
Expected<double> iperf3_number(std::string_view text, double base) {
  double scale = 1;
  if (!text.empty()) {
    switch (text.back()) {
      case 'k':
      case 'K': scale = base; break;
      case 'm':
      case 'M': scale = base * base; break;
      case 'g':
      case 'G': scale = base * base * base; break;
      case 't':
      case 'T': scale = base * base * base * base; break;
      default: break;
    }
    if (scale != 1) text.remove_suffix(1);
  }
  auto value = parse_seconds(text, true);  // a non-negative decimal, as seconds are
  if (!value) return fail(fmt::format("'{}' is not a number with an optional K, M, G or T", text));
  return *value * scale;
}

// A client's option: remembered, so that a server given it is told (as 3.12 tells it).
void client_option(Iperf3Parse& p, const char* name) {
  if (p.client_only.empty()) p.client_only = name;
}

// -M's least: Linux refuses a TCP_MAXSEG below its TCP_MIN_MSS.
constexpr uint64_t min_mss = 88;

// A whole number from `min` to `max`, or the rule in one line.
Expected<uint64_t> in_range(const std::string& v, uint64_t min, uint64_t max) {
  auto n = parse_count(v, max);
  if (!n || *n < min)
    return fail(fmt::format("'{}' is not a whole number from {} to {}", v, min, max));
  return n;
}

Status set_server(Iperf3Parse& p, const std::string&) {
  p.server = true;
  return ok();
}
Status set_client(Iperf3Parse& p, const std::string& host) {
  if (host.empty()) return fail("needs the server's host name or address");
  p.client = host;
  return ok();
}
Status set_port(Iperf3Parse& p, const std::string& v) {
  auto n = parse_count(v, 65535);
  if (!n || *n < 1) return fail(fmt::format("'{}' is not a port from 1 to 65535", v));
  p.spec.layout.base_port = static_cast<uint16_t>(*n);
  return ok();
}
Status set_interval(Iperf3Parse& p, const std::string& v) {
  auto s = parse_seconds(v, true);
  if (!s) return s.error();
  if (*s != 0 && (*s < 0.1 || *s > 60))
    return fail(fmt::format("'{}' is not 0 (off) or 0.1 to 60 seconds, as iperf3 takes", v));
  // 0: iperf3 prints no interval rows; the run's clock still ticks once a second.
  p.spec.output.interval_s = *s == 0 ? 1.0 : *s;
  p.spec.iperf3.intervals = *s != 0;
  return ok();
}
Status set_one_off(Iperf3Parse& p, const std::string&) {
  p.spec.iperf3.one_off = true;
  return ok();
}
Status set_bind(Iperf3Parse& p, const std::string& v) {
  if (v.find('%') != std::string::npos)
    return fail("binding to a device (%dev) is not served; give the address alone");
  if (v.empty()) return fail("needs an address");
  p.bind = v;
  return ok();
}
Status set_ipv4(Iperf3Parse& p, const std::string&) {
  p.ipv4 = true;
  return ok();
}
Status set_ipv6(Iperf3Parse& p, const std::string&) {
  p.ipv6 = true;
  return ok();
}
Status set_verbose(Iperf3Parse& p, const std::string&) {
  p.spec.output.verbose = true;
  return ok();
}
Status set_format(Iperf3Parse& p, const std::string& v) {
  if (v.size() != 1 || std::string_view("kmgtKMGT").find(v[0]) == std::string_view::npos)
    return fail(fmt::format("'{}' is not one of k m g t (bits) or K M G T (bytes)", v));
  p.spec.iperf3.format = v[0];
  return ok();
}
Status set_forceflush(Iperf3Parse& p, const std::string&) {
  p.spec.iperf3.forceflush = true;
  return ok();
}
Status set_json(Iperf3Parse& p, const std::string&) {
  p.spec.iperf3.json = true;
  return ok();
}
Status set_help(Iperf3Parse& p, const std::string&) {
  p.action = Action::help;
  return ok();
}
Status set_version(Iperf3Parse& p, const std::string&) {
  p.action = Action::version;
  return ok();
}
Status set_skip_rx_copy(Iperf3Parse& p, const std::string& v) {
  auto on = bind::on_off(v.empty() ? std::nullopt : std::optional<std::string>(v));
  if (!on) return on.error();
  p.spec.io.skip_rx_copy = *on;
  return ok();
}
Status set_backend(Iperf3Parse& p, const std::string& v) {
  if (v.empty()) return fail("needs a backend name (see 'xttcp backends')");
  p.spec.backend = v;
  return ok();
}

Status set_time(Iperf3Parse& p, const std::string& v) {
  client_option(p, "-t");
  auto n = in_range(v, 1, iperf3::max_time_s);
  if (!n)
    return fail(
        fmt::format("'{}' is not a whole number of seconds from 1 to {}", v, iperf3::max_time_s));
  p.spec.workload.duration_s = static_cast<uint32_t>(*n);
  p.ends.push_back("-t");
  return ok();
}
// -n or -k: the count that ends the test instead of -t.
Status set_end_count(Iperf3Parse& p, const std::string& v, const char* option, uint64_t& count,
                     const char* what) {
  client_option(p, option);
  auto n = iperf3_number(v, 1024);
  if (!n || *n < 1 || *n >= 1.8e19) return fail(fmt::format("'{}' is not a {}", v, what));
  count = static_cast<uint64_t>(*n);
  p.ends.push_back(option);
  return ok();
}
Status set_bytes(Iperf3Parse& p, const std::string& v) {
  return set_end_count(p, v, "-n", p.spec.iperf3.bytes, "size of at least 1 byte");
}
Status set_blocks(Iperf3Parse& p, const std::string& v) {
  return set_end_count(p, v, "-k", p.spec.iperf3.blocks, "count of at least 1 block");
}
Status set_parallel(Iperf3Parse& p, const std::string& v) {
  client_option(p, "-P");
  auto n = in_range(v, 1, iperf3::max_parallel);
  if (!n)
    return fail(fmt::format("'{}' is not a number of streams from 1 to {} (iperf3's maximum)", v,
                            iperf3::max_parallel));
  p.spec.layout.ports = static_cast<uint32_t>(*n);
  return ok();
}
Status set_reverse(Iperf3Parse& p, const std::string&) {
  client_option(p, "-R");
  p.spec.iperf3.reverse = true;
  return ok();
}
Status set_mss(Iperf3Parse& p, const std::string& v) {
  client_option(p, "-M");
  auto n = in_range(v, min_mss, iperf3::max_mss);
  if (!n)
    return fail(
        fmt::format("'{}' is not a TCP segment size of {} to {} bytes (Linux's least, "
                    "iperf3's most)",
                    v, min_mss, iperf3::max_mss));
  p.spec.iperf3.mss = static_cast<uint32_t>(*n);
  return ok();
}
Status set_bidir(Iperf3Parse& p, const std::string&) {
  client_option(p, "--bidir");
  p.spec.iperf3.bidir = true;
  return ok();
}
// -b or --fq-rate: bits/s per stream (0: unlimited).
Status set_stream_rate(Iperf3Parse& p, const std::string& v, const char* option, uint64_t& rate) {
  client_option(p, option);
  auto n = iperf3_number(v, 1000);
  if (!n || *n >= 1.8e19)
    return fail(fmt::format("'{}' is not a rate in bits/s (0: unlimited)", v));
  rate = static_cast<uint64_t>(*n);
  return ok();
}
Status set_bitrate(Iperf3Parse& p, const std::string& v) {
  if (v.find('/') != std::string::npos)
    return fail("a burst (RATE/N) is not served: xttcp paces every send by its own clock");
  p.rate_given = true;
  return set_stream_rate(p, v, "-b", p.spec.iperf3.stream_rate_bps);
}
Status set_udp(Iperf3Parse& p, const std::string&) {
  client_option(p, "-u");
  p.spec.workload.protocol = Protocol::udp;
  return ok();
}
Status set_get_server_output(Iperf3Parse& p, const std::string&) {
  client_option(p, "--get-server-output");
  p.spec.iperf3.get_server_output = true;
  return ok();
}
Status set_udp_counters_64bit(Iperf3Parse& p, const std::string&) {
  client_option(p, "--udp-counters-64bit");
  p.spec.iperf3.udp_counters_64bit = true;
  return ok();
}
Status set_fq_rate(Iperf3Parse& p, const std::string& v) {
  return set_stream_rate(p, v, "--fq-rate", p.spec.iperf3.stream_fq_rate_bps);
}
Status set_length(Iperf3Parse& p, const std::string& v) {
  client_option(p, "-l");
  auto n = iperf3_number(v, 1024);
  if (!n || *n < 1 || *n > iperf3::max_tcp_length)
    return fail(
        fmt::format("'{}' is not a block size from 1 byte to 1M (iperf3's TCP maximum)", v));
  p.spec.workload.send_buffer = p.spec.workload.recv_buffer = static_cast<uint32_t>(*n);
  p.length_given = true;
  return ok();
}
Status set_window(Iperf3Parse& p, const std::string& v) {
  client_option(p, "-w");
  auto n = iperf3_number(v, 1024);
  if (!n || *n < 1 || *n > iperf3::max_window)
    return fail(fmt::format("'{}' is not a socket buffer size from 1 byte to 512M", v));
  p.spec.io.socket_recv_buffer = p.spec.io.socket_send_buffer = static_cast<int64_t>(*n);
  return ok();
}
Status set_omit(Iperf3Parse& p, const std::string& v) {
  client_option(p, "-O");
  auto n = in_range(v, 0, iperf3::max_omit_s);
  if (!n)
    return fail(
        fmt::format("'{}' is not a whole number of seconds from 0 to {}", v, iperf3::max_omit_s));
  p.spec.workload.warmup_s = static_cast<uint32_t>(*n);
  return ok();
}
Status set_zerocopy(Iperf3Parse& p, const std::string&) {
  client_option(p, "-Z");
  p.spec.io.zerocopy = ZeroCopy::on;
  return ok();
}
Status set_congestion(Iperf3Parse& p, const std::string& v) {
  client_option(p, "-C");
  if (v.empty() || v.size() > iperf3::max_congestion_bytes)
    return fail(fmt::format("'{}' is not a congestion control name of 1 to {} characters", v,
                            iperf3::max_congestion_bytes));
  p.spec.io.congestion = v;
  return ok();
}
Status set_no_delay(Iperf3Parse& p, const std::string&) {
  client_option(p, "-N");
  p.spec.io.no_delay = true;
  return ok();
}
Status set_title(Iperf3Parse& p, const std::string& v) {
  client_option(p, "-T");
  if (v.size() > iperf3::max_text_bytes)
    return fail(fmt::format("a title of at most {} bytes", iperf3::max_text_bytes));
  p.spec.iperf3.title = v;
  return ok();
}
Status set_cport(Iperf3Parse& p, const std::string& v) {
  client_option(p, "--cport");
  auto n = in_range(v, 1, 65535);
  if (!n) return fail(fmt::format("'{}' is not a port from 1 to 65535", v));
  p.spec.layout.source_base_port = static_cast<uint16_t>(*n);
  return ok();
}
Status set_connect_timeout(Iperf3Parse& p, const std::string& v) {
  client_option(p, "--connect-timeout");
  auto n = in_range(v, 1, 3600 * 1000);
  if (!n) return fail(fmt::format("'{}' is not a number of milliseconds from 1 to 3600000", v));
  p.spec.control.connect_timeout_s = static_cast<uint32_t>((*n + 999) / 1000);
  return ok();
}

constexpr OptionRow rows[] = {
    {'s', "server", Arg::none, set_server},
    {'c', "client", Arg::required, set_client},
    {'p', "port", Arg::required, set_port},
    {'i', "interval", Arg::required, set_interval},
    {'1', "one-off", Arg::none, set_one_off},
    {'B', "bind", Arg::required, set_bind},
    {'4', "version4", Arg::none, set_ipv4},
    {'6', "version6", Arg::none, set_ipv6},
    {'V', "verbose", Arg::none, set_verbose},
    {'f', "format", Arg::required, set_format},
    {0, "forceflush", Arg::none, set_forceflush},
    {'J', "json", Arg::none, set_json},
    {'h', "help", Arg::none, set_help},
    {'v', "version", Arg::none, set_version},
    {0, "backend", Arg::required, set_backend},
    {0, "skip-rx-copy", Arg::optional, set_skip_rx_copy},
    {'t', "time", Arg::required, set_time},
    {'n', "bytes", Arg::required, set_bytes},
    {'k', "blockcount", Arg::required, set_blocks},
    {'P', "parallel", Arg::required, set_parallel},
    {'R', "reverse", Arg::none, set_reverse},
    {0, "bidir", Arg::none, set_bidir},
    {'M', "set-mss", Arg::required, set_mss},
    {'b', "bitrate", Arg::required, set_bitrate},
    {'l', "length", Arg::required, set_length},
    {'w', "window", Arg::required, set_window},
    {'O', "omit", Arg::required, set_omit},
    {'Z', "zerocopy", Arg::none, set_zerocopy},
    {'C', "congestion", Arg::required, set_congestion},
    {'N', "no-delay", Arg::none, set_no_delay},
    {'T', "title", Arg::required, set_title},
    {0, "cport", Arg::required, set_cport},
    {0, "fq-rate", Arg::required, set_fq_rate},
    {0, "connect-timeout", Arg::required, set_connect_timeout},
    {'u', "udp", Arg::none, set_udp},
    {0, "udp-counters-64bit", Arg::none, set_udp_counters_64bit},
    {0, "get-server-output", Arg::none, set_get_server_output},
};

// What xttcp's iperf3 client does not run yet (issue 32), and the other end that does.
constexpr const char* not_yet = "is not run by xttcp's iperf3 client yet (iperf3 itself runs it)";

constexpr option_rows::RefusedRow refused[] = {
    {0, "logfile", Arg::required, "xttcp prints on standard output (redirect it: >> FILE)"},
    {0, "pacing-timer", Arg::required, "xttcp paces every send by its own clock"},
    {0, "repeating-payload", Arg::none, not_yet},
    {0, "extra-data", Arg::required, not_yet},
    {'S', "tos", Arg::required, not_yet},
    {0, "dscp", Arg::required, not_yet},
    {'L', "flowlabel", Arg::required, not_yet},
    {0, "dont-fragment", Arg::none, not_yet},
    {'A', "affinity", Arg::required,
     "xttcp places its threads by the topology (--threads, --pin, -m in the other dialects)"},
    {'D', "daemon", Arg::none, "xttcp does not detach in the iperf3 dialect (run it with &)"},
    {'I', "pidfile", Arg::required, "xttcp writes no PID file (its parent knows its PID)"},
    {'F', "file", Arg::required, "file transfers are not served"},
    {'d', "debug", Arg::optional, "xttcp's -V says what it does"},
    {0, "idle-timeout", Arg::required, "xttcp's server waits for its next client until Ctrl+C"},
    {0, "rcv-timeout", Arg::required,
     "xttcp bounds every wait on a client by itself (10 s for each message)"},
    {0, "snd-timeout", Arg::required, "TCP_USER_TIMEOUT is not set"},
    {0, "server-bitrate-limit", Arg::required, "a server rate limit is not served"},
    {0, "rsa-private-key-path", Arg::required, "iperf3's authentication is not served"},
    {0, "authorized-users-path", Arg::required, "iperf3's authentication is not served"},
    {0, "time-skew-threshold", Arg::required, "iperf3's authentication is not served"},
    {0, "use-pkcs1-padding", Arg::none, "iperf3's authentication is not served"},
    {0, "username", Arg::required, "iperf3's authentication is not served"},
    {0, "rsa-public-key-path", Arg::required, "iperf3's authentication is not served"},
    {0, "timestamps", Arg::optional, "time stamps on the lines are not printed"},
    {0, "sctp", Arg::none, "SCTP is not served"},
    {'X', "xbind", Arg::required, "SCTP is not served"},
    {0, "nstreams", Arg::required, "SCTP is not served"},
};

// -u: 3.12's datagram (-l, else the control connection's MSS: client_run.cc) and rate (-b,
// else 1 Mibit/s per stream); without -u, --udp-counters-64bit has nothing to count.
Status settle_udp(Iperf3Parse& p) {
  TestSpec& spec = p.spec;
  if (spec.workload.protocol != Protocol::udp) {
    if (spec.iperf3.udp_counters_64bit) return fail("--udp-counters-64bit: a UDP test's (add -u)");
    return ok();
  }
  if (p.length_given && (spec.workload.send_buffer < iperf3::min_udp_length ||
                         spec.workload.send_buffer > iperf3::max_udp_length))
    return fail(fmt::format("-l: a UDP datagram is {} to {} bytes (iperf3's limits), not {}",
                            iperf3::min_udp_length, iperf3::max_udp_length,
                            spec.workload.send_buffer));
  if (!p.length_given) {
    spec.iperf3.udp_length_from_mss = true;
    spec.workload.send_buffer = spec.workload.recv_buffer = 1460;
  }
  if (!p.rate_given) spec.iperf3.stream_rate_bps = iperf3::default_udp_rate_bps;
  if (spec.io.zerocopy == ZeroCopy::on)
    return fail("-Z: zero-copy sends are TCP's here (UDP datagrams are copied)");
  return ok();
}

Expected<Command> finish(Iperf3Parse& p) {
  Command command;
  command.action = p.action;
  if (p.action != Action::run) return command;
  TestSpec& spec = p.spec;
  if (p.server && p.client)
    return fail("-s and -c cannot be used together (a run is either server or client)");
  if (!p.server && !p.client) return fail("-s or -c is needed (see 'iperf3 --help')");
  if (p.ipv4 && p.ipv6) return fail("-4 and -6 cannot be used together");
  if (p.server && !p.client_only.empty())
    return fail(
        fmt::format("{}: a client's option (a server takes every test setting from its "
                    "client)",
                    p.client_only));
  if (spec.iperf3.reverse && spec.iperf3.bidir)
    return fail(
        "-R and --bidir cannot be used together (iperf3: cannot be both reverse and "
        "bidirectional)");
  if (p.ends.size() > 1)
    return fail(
        fmt::format("{} and {}: only one of -t, -n and -k ends a test", p.ends[0], p.ends[1]));
  spec.layout.one_port = true;
  spec.layout.ipv6 = p.ipv6;
  spec.output.quiet = true;  // iperf3's interval rows, not NTTTCP's real-time line
  if (p.server) {
    spec.role = Role::receiver;
    spec.layout.address = p.bind.value_or(p.ipv6 ? "::" : "");
  } else {
    // The client: the test as the engine runs it is client_run.cc's (the direction, -b per
    // stream); -n and -k end it, else -t.
    spec.role = Role::sender;
    spec.layout.address = *p.client;
    spec.layout.ipv6 = p.ipv6 || literal_family(*p.client) == LiteralFamily::ipv6;
    spec.layout.source_address = p.bind.value_or("");
    spec.layout.threads_per_port = 1;
    spec.layout.conns_per_thread = 1;
    spec.control.no_sync = true;
    if (p.ends.empty() || p.ends[0] != "-t")
      spec.workload.duration_s =
          (spec.iperf3.bytes || spec.iperf3.blocks) ? iperf3::max_time_s : 10;
    if (Status udp = settle_udp(p); !udp) return udp.error();
  }
  command.spec = spec;
  return command;
}

}  // namespace

Expected<Command> parse_iperf3_dialect(const std::vector<std::string>& args) {
  Iperf3Parse parse;
  parse.spec.dialect = Dialect::iperf3;
  parse.spec.layout.base_port = iperf3::default_port;
  parse.spec.output.interval_s = 1.0;
  parse.spec.layout.ports = 1;                                                     // -P
  parse.spec.workload.warmup_s = 0;                                                // -O
  parse.spec.workload.send_buffer = parse.spec.workload.recv_buffer = 128 * 1024;  // -l
  if (Status read = option_rows::read_line<Iperf3Parse>(args, rows, refused, parse, "iperf3",
                                                        "iperf3 --help");
      !read)
    return read.error();
  return finish(parse);
}

std::string iperf3_dialect_help() {
  return R"(Usage: iperf3 [-s|-c host] [options]    (xttcp, the iperf3 dialect: iperf3 3.12's command line)

xttcp runs either end of an iperf3 3.12 test over iperf3's own protocol: one TCP port
for the control connection and every stream (UDP: the same port number); the streams
run on xttcp's workers, spread
over the cores. A server takes every test setting from its client. docs/iperf3.md.

Server or Client:
  -p, --port #              server port to listen on/connect to (default 5201)
  -f, --format [kmgtKMGT]   format to report: Kbits, Mbits, Gbits, Tbits (upper case: bytes)
  -i, --interval #          seconds between periodic reports (0: none; 0.1 to 60)
  -V, --verbose             more detailed output
  -J, --json                output in JSON format (iperf3 3.12's document)
  --forceflush              force flushing output at every interval
  -B, --bind <host>         bind to this address (the server listens on it; the client
                            connects from it)
  -4, --version4            only use IPv4
  -6, --version6            only use IPv6
  -v, --version             show version information and quit
  -h, --help                show this message and quit
Server specific:
  -s, --server              run in server mode
  -1, --one-off             handle one client connection then exit
Client specific:
  -c, --client <host>       run in client mode, connecting to <host>
  -t, --time #              time in seconds to transmit for (default 10)
  -n, --bytes #[KMGT]       number of bytes to transmit (instead of -t)
  -k, --blockcount #[KMGT]  number of blocks (sends or reads) to transmit (instead of -t)
  -P, --parallel #          number of parallel client streams to run (1 to 128)
  -R, --reverse             run in reverse mode (server sends, client receives)
  --bidir                   run in bidirectional mode (client and server send and receive)
  -M, --set-mss #           set TCP maximum segment size (88 to 9216 bytes)
  -u, --udp                 use UDP rather than TCP
  --udp-counters-64bit      use 64-bit counters in UDP test packets
  -b, --bitrate #[KMGT]     target bitrate in bits/sec per stream (default: unlimited for
                            TCP, 1 Mbit/sec for UDP)
  --fq-rate #[KMGT]         fair-queuing pacing in bits/sec per stream
  -l, --length #[KMGT]      length of the buffer to read or write (default 128 KB for TCP;
                            for UDP the control connection's MSS, at most 65507, else 1460)
  -w, --window #[KMGT]      socket buffer sizes, at both ends
  -O, --omit N              omit the first N seconds
  -Z, --zerocopy            zero-copy sends (MSG_ZEROCOPY)
  -C, --congestion <algo>   congestion control algorithm, at both ends
  -N, --no-delay            set TCP no delay, disabling Nagle's algorithm
  -T, --title <str>         prefix every output line with this string
  --cport <port>            the streams' first source port (each next one +1)
  --connect-timeout #       control connection timeout, in ms
  --get-server-output       get results from server
xttcp:
  --backend NAME            the data path (epoll; 'xttcp backends' lists them)
  --skip-rx-copy[=on|off]   on (the default): received bytes are discarded in the kernel
                            (MSG_TRUNC); off: copied into user space, as iperf3 does
  --dialect iperf3          this grammar (also chosen by the program name iperf3)

Not yet run by xttcp: authentication.
)";
}

}  // namespace xttcp
