// The iperf3 dialect: iperf3 3.12's command line (tests/reference/iperf3-3.12/README.md 9,
// docs/iperf3.md) read getopt-style into the spec. Its server takes every test setting from
// the client over the wire; what it keeps for itself is where it listens and how it reports.
// What xttcp does not do (yet) is refused in one line naming the option and why. Rows only
// record; the rules between options run at the end, so option order never matters.
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "base/units.hh"
#include "engine/iperf3/control_wire.hh"
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
};
using OptionRow = option_rows::OptionRow<Iperf3Parse>;

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
    {'h', "help", Arg::none, set_help},
    {'v', "version", Arg::none, set_version},
    {0, "backend", Arg::required, set_backend},
    {0, "skip-rx-copy", Arg::optional, set_skip_rx_copy},
};

// The client's options: a server takes them from its client, and xttcp's iperf3 client is not
// built yet (issue 32): xttcp's own sender (xttcp -s HOST) or iperf3 itself serve that end.
constexpr const char* client_side =
    "xttcp's iperf3 client is not built yet (serve iperf3 clients with -s, or use xttcp's own "
    "sender)";

constexpr option_rows::RefusedRow refused[] = {
    {'J', "json", Arg::none, "the server's JSON document is not written yet (its console is)"},
    {0, "logfile", Arg::required, "xttcp prints on standard output (redirect it: >> FILE)"},
    {'t', "time", Arg::required, client_side},
    {'n', "bytes", Arg::required, client_side},
    {'k', "blockcount", Arg::required, client_side},
    {'P', "parallel", Arg::required, client_side},
    {'R', "reverse", Arg::none, client_side},
    {0, "bidir", Arg::none, client_side},
    {'u', "udp", Arg::none, client_side},
    {'b', "bitrate", Arg::required, client_side},
    {'l', "length", Arg::required, client_side},
    {'w', "window", Arg::required, client_side},
    {'O', "omit", Arg::required, client_side},
    {'Z', "zerocopy", Arg::none, client_side},
    {'C', "congestion", Arg::required, client_side},
    {'N', "no-delay", Arg::none, client_side},
    {'M', "set-mss", Arg::required, client_side},
    {'T', "title", Arg::required, client_side},
    {0, "get-server-output", Arg::none, client_side},
    {0, "cport", Arg::required, client_side},
    {0, "fq-rate", Arg::required, client_side},
    {0, "pacing-timer", Arg::required, client_side},
    {0, "connect-timeout", Arg::required, client_side},
    {0, "udp-counters-64bit", Arg::none, client_side},
    {0, "repeating-payload", Arg::none, client_side},
    {0, "extra-data", Arg::required, client_side},
    {'S', "tos", Arg::required, client_side},
    {0, "dscp", Arg::required, client_side},
    {'L', "flowlabel", Arg::required, client_side},
    {0, "dont-fragment", Arg::none, client_side},
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

Expected<Command> finish(Iperf3Parse& p) {
  Command command;
  command.action = p.action;
  if (p.action != Action::run) return command;
  TestSpec& spec = p.spec;
  if (p.server && p.client)
    return fail("-s and -c cannot be used together (a run is either server or client)");
  if (p.client) return fail(fmt::format("-c: {}", client_side));
  if (!p.server) return fail("-s is needed (see 'iperf3 --help')");
  if (p.ipv4 && p.ipv6) return fail("-4 and -6 cannot be used together");
  spec.role = Role::receiver;
  spec.layout.one_port = true;
  spec.layout.ipv6 = p.ipv6;
  spec.layout.address = p.bind.value_or(p.ipv6 ? "::" : "");
  spec.output.quiet = true;  // iperf3's interval rows, not NTTTCP's real-time line
  command.spec = spec;
  return command;
}

}  // namespace

Expected<Command> parse_iperf3_dialect(const std::vector<std::string>& args) {
  Iperf3Parse parse;
  parse.spec.dialect = Dialect::iperf3;
  parse.spec.layout.base_port = iperf3::default_port;
  parse.spec.output.interval_s = 1.0;
  if (Status read = option_rows::read_line<Iperf3Parse>(args, rows, refused, parse, "iperf3",
                                                        "iperf3 --help");
      !read)
    return read.error();
  return finish(parse);
}

std::string iperf3_dialect_help() {
  return R"(Usage: iperf3 -s [options]    (xttcp, the iperf3 dialect: iperf3 3.12's command line)

xttcp serves iperf3 3.12 clients over iperf3's own protocol: one TCP port for the
control connection and every stream; the streams run on xttcp's workers, spread over
the cores. Every test setting (-P, -t, -R, -l, -w, -O, -N, -C, -b with -R) comes from
the client. docs/iperf3.md.

Server or Client:
  -p, --port #              server port to listen on (default 5201)
  -f, --format [kmgtKMGT]   format to report: Kbits, Mbits, Gbits, Tbits (upper case: bytes)
  -i, --interval #          seconds between periodic reports (0: none; 0.1 to 60)
  -V, --verbose             more detailed output
  --forceflush              force flushing output at every interval
  -B, --bind <host>         listen on this address only
  -4, --version4            only use IPv4
  -6, --version6            only use IPv6
  -v, --version             show version information and quit
  -h, --help                show this message and quit
Server specific:
  -s, --server              run in server mode
  -1, --one-off             handle one client connection then exit
xttcp:
  --backend NAME            the data path (epoll; 'xttcp backends' lists them)
  --skip-rx-copy[=on|off]   on (the default): received bytes are discarded in the kernel
                            (MSG_TRUNC); off: copied into user space, as iperf3 does
  --dialect iperf3          this grammar (also chosen by the program name iperf3)

Not yet served: the iperf3 client (-c), UDP (-u), --bidir, -M, -J, authentication.
)";
}

}  // namespace xttcp
