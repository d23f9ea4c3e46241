#include "tools/cli/linux_options.hh"

#include <algorithm>

#include <fmt/format.h>

#include "base/units.hh"
#include "engine/net/address_filter.hh"
#include "tools/cli/congestion_name.hh"
#include "tools/cli/defaults_profile.hh"
#include "tools/cli/option_binders.hh"
#include "tools/cli/parse_state.hh"
#include "topology/placement.hh"

namespace xttcp {

namespace {

constexpr uint32_t busy_poll_default_us = 50;  // a few round trips of a fast NIC
constexpr uint32_t busy_poll_max_us = 100'000;

using Value = std::optional<std::string>;

// ---- value parsers shared by rows -------------------------------------------------------

// A count of at least 1; above `max` it is clamped with a note, as NTTTCP-for-Linux does.
Expected<uint32_t> clamped_count(ParseState& state, const std::string& text, uint32_t max,
                                 const char* option, const char* what) {
  auto count = parse_count(text, UINT32_MAX);
  if (!count) return count.error();
  if (*count == 0) return fail(std::string("the number of ") + what + " must be at least 1");
  if (*count > max) {
    state.note(fmt::format("{}: {} {} is above the maximum of {}; using {}", option, *count, what,
                           max, max));
    return max;
  }
  return static_cast<uint32_t>(*count);
}

Expected<uint32_t> whole_seconds(const std::string& text) {
  auto seconds = parse_count(text, max_whole_seconds);
  if (!seconds) return seconds.error();
  return static_cast<uint32_t>(*seconds);
}

// -W, -t, -C: whole seconds, as NTTTCP's sync protocol tells them to the peer. A fraction
// ("-t 1.5", an iperf habit) is refused with the rule rather than rounded.
Expected<uint32_t> phase_seconds(const std::string& text) {
  auto seconds = whole_seconds(text);
  if (seconds) return seconds;
  if (auto fraction = parse_seconds(text, true); fraction && text.find('.') != std::string::npos)
    return fail(fmt::format(
        "'{}' is not a whole number of seconds (-W, -t and -C are whole seconds, as the peer is "
        "told them; --interval and --repeat-pause take fractions)",
        text));
  return seconds;
}

// ---- setters: options that do more than store one value (option_binders.hh has the rest) ----

Status set_receiver(ParseState& state, const Value& value) {
  state.receiver_chosen = true;
  if (value) state.role_address = *value;
  return ok();
}

Status set_sender(ParseState& state, const Value& value) {
  state.sender_chosen = true;
  if (value) state.role_address = *value;
  return ok();
}

Status set_local(ParseState& state, const Value&) {
  state.local_chosen = true;
  return ok();
}

Status set_mapping(ParseState& state, const Value& value) {
  auto mapping = parse_mapping(*value, state.cpu_count);
  if (!mapping) return mapping.error();
  state.mapping = *mapping;
  state.spec().layout.mapping_text = *value;
  return ok();
}

Status set_ports(ParseState& state, const Value& value) {
  auto ports = clamped_count(state, *value, limits::max_ports, "-P", "ports");
  if (!ports) return ports.error();
  state.spec().layout.ports = *ports;
  return ok();
}

Status set_source_addresses(ParseState& state, const Value& value) {
  std::vector<std::string> addresses;
  std::string_view rest = *value;
  while (true) {
    const size_t comma = rest.find(',');
    auto address =
        bind::non_empty<"a comma-separated address list">(std::string(rest.substr(0, comma)));
    if (!address) return address.error();
    addresses.push_back(*address);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  if (addresses.size() > 4096) return fail("at most 4096 addresses");
  state.spec().layout.source_address = addresses.front();
  state.spec().layout.source_addresses = std::move(addresses);
  return ok();
}

Status set_allow(ParseState& state, const Value& value) {
  auto filter = AddressFilter::parse(*value);  // refused here, not when the first peer comes
  if (!filter) return filter.error();
  std::vector<std::string> blocks;
  for (const CidrBlock& block : filter->blocks()) blocks.push_back(block.to_string());
  state.spec().access.allow = std::move(blocks);
  return ok();
}

Status set_threads_per_port(ParseState& state, const Value& value) {
  auto threads =
      clamped_count(state, *value, limits::max_threads_per_port, "-n", "threads per port");
  if (!threads) return threads.error();
  state.spec().layout.threads_per_port = *threads;
  return ok();
}

Status set_conns_per_thread(ParseState& state, const Value& value) {
  auto conns =
      clamped_count(state, *value, limits::max_conns_per_thread, "-l", "connections per thread");
  if (!conns) return conns.error();
  state.spec().layout.conns_per_thread = *conns;
  return ok();
}

Expected<uint16_t> port_number(const std::string& text) {
  auto port = parse_count(text, UINT64_MAX);
  if (!port) return port.error();
  if (*port < 1 || *port > 65535) return fail(fmt::format("port {} is outside 1..65535", *port));
  return static_cast<uint16_t>(*port);
}

Status set_source_port(ParseState& state, const Value& value) {
  uint16_t port = defaults::source_base_port;
  if (value && *value == "auto") {  // the default, said explicitly: ports chosen for the RSS
    state.spec().layout.source_base_port = 0;
    return ok();
  }
  if (value) {
    auto given = parse_count(*value, UINT64_MAX);
    if (!given) return given.error();
    if (*given > 65535) return fail(fmt::format("port {} is outside 1..65535", *given));
    if (*given <= 1024)
      state.note(fmt::format("-f: source port {} is 1024 or below; using {}", *given,
                             defaults::source_base_port));
    else
      port = static_cast<uint16_t>(*given);
  }
  state.spec().layout.source_base_port = port;
  return ok();
}

Status set_buffer(ParseState& state, const Value& value) {
  auto size = parse_size(*value);
  if (!size) return size.error();
  if (*size == 0) return fail("the buffer size must be at least 1 byte");
  if (*size > limits::max_buffer_bytes)
    return fail(
        fmt::format("{} is {} bytes, above the maximum of {} (1g: one send or receive "
                    "call moves at most that)",
                    *value, *size, limits::max_buffer_bytes));
  state.spec().workload.send_buffer = static_cast<uint32_t>(*size);
  state.spec().workload.recv_buffer = static_cast<uint32_t>(*size);
  // iperf's -b 100m is a rate; here it is 100 MiB per call. The spelling decides, not the size:
  // NTTTCP users write buffers in k (LISA: -b 64k, 1024k).
  if (std::string_view("mMgG").find(value->back()) != std::string_view::npos)
    state.note(fmt::format(
        "-b {}: each send and receive moves up to {} bytes (-b is NTTTCP's buffer size; a rate, "
        "as iperf's -b {}, is -B {} here)",
        *value, *size, *value, *value));
  return ok();
}

Status set_help(ParseState& state, const Value&) {
  state.command.action = Action::help;
  return ok();
}

Status set_version(ParseState& state, const Value&) {
  state.command.action = Action::version;
  return ok();
}

Status set_placement(ParseState& state, const Value& value) {
  Expected<PlacementMode> mode = parse_placement_mode(*value);
  if (!mode)
    return fail(
        fmt::format("'{}' is not one of spread, numa, irq, irq-sibling, avoid-irq", *value));
  state.spec().placement.mode = *mode;
  return ok();
}

Status set_interval(ParseState& state, const Value& value) {
  auto seconds = parse_seconds(*value, false);
  if (!seconds) return seconds.error();
  if (*seconds < 0.01) return fail("the interval must be at least 0.01 s");
  state.spec().output.interval_s = *seconds;
  return ok();
}

// --reverse runs on one port: this end makes every connection, and the receiver sends on them.
Status set_reverse(ParseState& state, const Value&) {
  state.spec().workload.reverse = true;
  state.spec().layout.one_port = true;
  return ok();
}

// --bidir too: this end makes the connections of both directions.
Status set_bidir(ParseState& state, const Value&) {
  state.spec().workload.bidir = true;
  state.spec().layout.one_port = true;
  return ok();
}

Status set_repeat_pause(ParseState& state, const Value& value) {
  auto seconds = parse_seconds(*value, true);
  if (!seconds) return seconds.error();
  if (*seconds > limits::max_repeat_pause_s) return fail("the pause must be at most 3600 s");
  state.spec().repeat.pause_s = *seconds;
  return ok();
}

Status set_zerocopy(ParseState& state, const Value& value) {
  if (!value || *value == "on") {
    state.spec().io.zerocopy = ZeroCopy::on;
  } else if (*value == "off") {
    state.spec().io.zerocopy = ZeroCopy::off;
  } else if (*value == "auto") {
    state.spec().io.zerocopy = ZeroCopy::automatic;
  } else {
    return fail("'" + *value + "' is not one of on, off, auto");
  }
  return ok();
}

Status set_defaults(ParseState& state, const Value& value) {
  auto defaults = parse_defaults_name(*value);
  if (!defaults) return defaults.error();
  state.spec().defaults = *defaults;  // applied once the whole line is read (defaults_profile.hh)
  return ok();
}

Status set_udp_payload(ParseState& state, const Value& value) {
  if (*value == "auto") {
    state.spec().workload.udp_payload = UdpPayload::automatic;
  } else if (*value == "native") {
    state.spec().workload.udp_payload = UdpPayload::native;
  } else if (*value == "compat") {
    state.spec().workload.udp_payload = UdpPayload::compat;
  } else {
    return fail("'" + *value + "' is not one of auto, native, compat");
  }
  return ok();
}

Status set_rr_depth(ParseState& state, const Value& value) {
  auto depth = parse_count(*value, UINT32_MAX);
  if (!depth) return depth.error();
  if (*depth == 0 || *depth > rr_limits::max_depth)
    return fail(fmt::format("the depth must be 1..{} transactions in flight per flow",
                            rr_limits::max_depth));
  state.spec().rr.depth = static_cast<uint32_t>(*depth);
  return ok();
}

Status set_response_size(ParseState& state, const Value& value) {
  auto size = parse_size(*value);
  if (!size) return size.error();
  if (*size == 0 || *size > limits::max_buffer_bytes)
    return fail(fmt::format("the response size must be 1..{} bytes", limits::max_buffer_bytes));
  state.spec().rr.response_size = static_cast<uint32_t>(*size);
  return ok();
}

Status set_rr_delay(ParseState& state, const Value& value) {
  auto delay = parse_count(*value, UINT32_MAX);
  if (!delay) return delay.error();
  if (*delay > rr_limits::max_delay_us)
    return fail(fmt::format("the delay must be 0..{} microseconds", rr_limits::max_delay_us));
  state.spec().rr.delay_us = static_cast<uint32_t>(*delay);
  return ok();
}

Status set_congestion(ParseState& state, const Value& value) {
  if (Status named = check_congestion_name(*value); !named) return named;
  state.spec().io.congestion = *value;
  return ok();
}

Status set_busy_poll(ParseState& state, const Value& value) {
  if (!value) {
    state.spec().io.busy_poll_us = busy_poll_default_us;
    return ok();
  }
  auto usec = parse_count(*value, UINT32_MAX);
  if (!usec) return usec.error();
  if (*usec > busy_poll_max_us)
    return fail(fmt::format("the busy-poll time must be 0..{} microseconds", busy_poll_max_us));
  state.spec().io.busy_poll_us = static_cast<uint32_t>(*usec);
  return ok();
}

Status set_receive_mark(ParseState& state, const Value& value) {
  if (!value || *value == "on") {
    state.spec().io.receive_mark = true;
  } else if (*value == "off") {
    state.spec().io.receive_mark = false;
  } else {
    return fail("'" + *value + "' is not one of on, off");
  }
  return ok();
}

constexpr auto none = ValueKind::none;
constexpr auto required = ValueKind::required;
constexpr auto optional = ValueKind::optional;
constexpr auto compatible = OptionGroup::compatible;
constexpr auto native = OptionGroup::native;
constexpr auto general = OptionGroup::general;
constexpr uint8_t sender_side = for_sender | for_local;
constexpr uint8_t two_hosts = for_receiver | for_sender;
// Rows with an ignored_on_* bit: NTTTCP-for-Linux accepts them on that role and does nothing
// with them (-e, -H on a sender: its "ignore '-e' on sender role"; -f, -B on a receiver: "ignore
// '-B' on receiver role"; -n, -l, --fq-rate-limit on a receiver: silently). -a on a receiver,
// -M on a sender and -L on a receiver it refuses, and so does xttcp.

// clang-format off
const OptionDef table[] = {
  // short, long, value, value name, roles, group, help, default, apply
  {'r', "", optional, "ADDR", for_any, compatible,
   "run as the receiver (the default role); ADDR = local address to listen on",
   "any address", set_receiver},
  {'s', "", optional, "ADDR", for_any, compatible,
   "run as the sender; ADDR = the receiver's address (or give it in -m)", "", set_sender},
  {'D', "", none, "", for_any, compatible,
   "run as a daemon (relative -O/-x/-j/--json paths are resolved before it detaches)", "", bind::flag<&Control::daemonize>},
  {'M', "", none, "", for_receiver, compatible,
   "multi-clients mode: several sender hosts, one of them with -L", "", bind::flag<&Control::multi_clients>},
  {'L', "", none, "", for_sender, compatible,
   "this is the last client of a receiver running with -M", "", bind::flag<&Control::last_client>},
  {'e', "", none, "", for_receiver | ignored_on_sender, compatible,
   "use epoll() (accepted; xttcp always uses the chosen --backend)", "", bind::flag<&AcceptedOptions::use_epoll>},
  {'H', "", none, "", for_receiver | ignored_on_sender, compatible,
   "hold: keep running test after test", "", bind::flag<&Control::hold>},
  {'m', "", required, "PORTS,CPU,ADDR", for_any, compatible,
   "mapping: PORTS receiver ports (one sender thread each unless -n), CPU '*' (any CPU) or the "
   "CPU id every worker is pinned to, ADDR as for -r/-s; fields may be left empty", "16,*,*",
   set_mapping},
  {'P', "", required, "N", for_any, compatible,
   "number of receiver ports", "16, max 512", set_ports},
  {'a', "", required, "ADDR", sender_side, compatible,
   "source address (and the interface that owns it)", "chosen by the kernel", bind::parsed<&Layout::source_address, bind::non_empty<"an address">>},
  {'n', "", required, "N", sender_side | ignored_on_receiver, compatible,
   "sender threads per receiver port", "4, max 25600", set_threads_per_port},
  {'l', "", required, "N", sender_side | ignored_on_receiver, compatible,
   "connections per sender thread", "1, max 1000", set_conns_per_thread},
  {'6', "", none, "", for_any, compatible, "IPv6", "IPv4", bind::flag<&Layout::ipv6>},
  {'u', "", none, "", for_any, compatible,
   "UDP: -b is the datagram size (clamped to 65507, IPv6 65527); see docs/udp.md", "TCP",
   bind::flag<&Workload::protocol, Protocol::udp>},
  {'p', "", required, "PORT", for_any, compatible,
   "first receiver port; the sync port is PORT - 1", "5001", bind::parsed<&Layout::base_port, port_number>},
  {'f', "", optional, "PORT", sender_side | ignored_on_receiver, compatible,
   "source ports from PORT (up to 1024 become 25001); auto: spread by the receiver's RSS",
   "auto; bare -f = 25001", set_source_port},
  {'b', "", required, "SIZE", for_any, compatible,
   "send()/recv() buffer length in bytes, k/m/g = 1024-based",
   "65536 receiver, 131072 sender", set_buffer},
  {'B', "", required, "RATE", sender_side | ignored_on_receiver, compatible,
   "bandwidth limit over all sender threads in bits/s, k/m/g = 1000-based", "off", bind::parsed<&Workload::rate_limit_bps, parse_rate>},
  {'W', "", required, "SEC", for_any, compatible,
   "warm-up seconds (traffic not measured)", "0", bind::parsed<&Workload::warmup_s, phase_seconds>},
  {'t', "", required, "SEC", for_any, compatible,
   "measured seconds; 0 = run until stopped, no results", "60", bind::parsed<&Workload::duration_s, phase_seconds>},
  {'C', "", required, "SEC", for_any, compatible,
   "cool-down seconds (traffic not measured)", "0", bind::parsed<&Workload::cooldown_s, phase_seconds>},
  {'N', "", none, "", two_hosts, compatible,
   "no sync: no control connection on port PORT - 1; needed with Windows NTttcp", "",
   bind::flag<&Control::no_sync>},
  {'O', "", optional, "FILE", for_any, compatible,
   "also write the console log to FILE", "ntttcp-for-linux-log.log", bind::file_or_default<&Output::log_file, defaults::log_file>},
  {'x', "", optional, "FILE", for_any, compatible,
   "write the XML result to FILE", "ntttcp-for-linux-log.xml", bind::file_or_default<&Output::xml_file, defaults::xml_file>},
  {'j', "", optional, "FILE", for_any, compatible,
   "write the NTTTCP-style JSON result to FILE", "ntttcp-for-linux-log.json", bind::file_or_default<&Output::json_file, defaults::json_file>},
  {'Q', "", none, "", for_any, compatible,
   "quiet: no real-time throughput lines", "", bind::flag<&Output::quiet>},
  {'V', "", none, "", for_any, compatible,
   "verbose: effective options, debug lines, per-thread table", "", bind::flag<&Output::verbose>},
  {0, "show-tcp-retrans", none, "", for_any, compatible,
   "print TCP retransmit rates", "", bind::flag<&Output::show_tcp_retrans>},
  {0, "show-nic-packets", required, "IF", for_any, compatible,
   "print tx/rx packet counts of network interface IF", "", bind::parsed<&Output::show_nic_packets, bind::non_empty<"an interface name">>},
  {0, "show-dev-interrupts", required, "STR", for_any, compatible,
   "sum the /proc/interrupts lines containing STR (e.g. mlx5, Hyper-V PCIe MSI)", "",
   bind::parsed<&Output::show_dev_interrupts, bind::non_empty<"a device name">>},
  {0, "fq-rate-limit", required, "RATE", sender_side | ignored_on_receiver, compatible,
   "pace each connection to RATE / connections bits/s with the fq qdisc (ignored with -B)",
   "off", bind::parsed<&Workload::fq_rate_limit_bps, parse_rate>},
  {0, "no-delay", none, "", for_any, compatible,
   "TCP_NODELAY on data connections", "", bind::flag<&IoOptions::no_delay>},

  {0, "local", none, "", for_any, native,
   "run receiver and sender in one process over loopback", "", set_local},
  {0, "backend", required, "NAME", for_any, native,
   "I/O backend: auto, epoll, io_uring, dpdk, null ('xttcp backends' says which auto takes)", "auto",
   bind::parsed<&TestSpec::backend, bind::non_empty<"a backend name">>},
  {0, "defaults", required, "NAME", for_any, native,
   "whose defaults: xttcp (MSG_TRUNC receive, UDP segmentation and batches, auto backend) or "
   "ntttcp (the original's work, for figures comparable with NTttcp's: the receiver copies, one "
   "send per write, epoll); options on the line still win",
   "xttcp; ntttcp when invoked as ntttcp, ntttcps or ntttcpr", set_defaults},
  {0, "placement", required, "MODE", for_any, native,
   "worker CPUs by the NIC: spread, numa (the NIC's node), irq (worker i on the CPU of RX queue "
   "i's interrupt), irq-sibling (its hyperthread sibling), avoid-irq (cores without a queue "
   "interrupt); falls back to spread, saying why, when the NIC tells too little",
   "spread", set_placement},
  {0, "nic", required, "IF", for_any, native,
   "the interface --placement follows", "the one routing to the peer (-s) or holding -r's address",
   bind::parsed<&PlacementSpec::nic, bind::non_empty<"an interface name">>},
  {0, "threads", required, "N", for_any, native,
   "OS threads that run the connections, 1..1024", "one per CPU allowed, at most one per flow",
   bind::parsed<&Layout::worker_threads, bind::count<1, 1024, "the number of threads must be 1..1024">>},
  {0, "zerocopy", optional, "MODE", sender_side, native,
   "zero-copy sends: on (bare --zerocopy), off, or auto (plain sends when the kernel copies "
   "nearly all, as on loopback)", "off", set_zerocopy},
  {0, "skip-rx-copy", optional, "on|off", for_receiver | for_local, native,
   "receive with MSG_TRUNC: the kernel runs the whole TCP receive path and counts the bytes "
   "without copying them to user space; off reads into a buffer like NTttcp", "on",
   bind::parsed_optional<&IoOptions::skip_rx_copy, bind::on_off>},
  {0, "udp-payload", required, "MODE", sender_side, native,
   "UDP payload: native (24-byte header: flow, sequence, send time; exact loss, reordering, "
   "jitter), compat (NTTTCP's 'B's), auto (native unless the receiver is NTTTCP)", "auto",
   set_udp_payload},
  {0, "udp-gso", optional, "on|off", sender_side, native,
   "UDP: send up to 64 datagrams per sendmsg with UDP_SEGMENT where the kernel has it", "on",
   bind::parsed_optional<&IoOptions::udp_gso, bind::on_off>},
  {0, "udp-gro", optional, "on|off", for_receiver | for_local, native,
   "UDP: receive coalesced datagrams with UDP_GRO where the kernel has it", "on", bind::parsed_optional<&IoOptions::udp_gro, bind::on_off>},
  {0, "sqpoll", none, "", for_any, native,
   "io_uring: a kernel thread polls the submission queue (costs a core)", "off", bind::flag<&UringOptions::sqpoll>},
  {0, "rr", none, "", for_any, native,
   "request/response: each flow keeps --rr-depth requests of -b bytes in flight, the receiver "
   "(-r --rr) answers each; round-trip percentiles and transactions/s (docs/rr.md)", "off",
   bind::flag<&RrSpec::on>},
  {0, "rr-depth", required, "N", sender_side, native,
   "--rr: transactions in flight per flow, 1..4096", "1", set_rr_depth},
  {0, "response-size", required, "SIZE", for_any, native,
   "--rr: bytes of each response (give both ends the same -b and --response-size)", "-b",
   set_response_size},
  {0, "rr-delay-us", required, "US", for_receiver | for_local, native,
   "--rr: the responder holds each answer US microseconds (a stand-in for a slower path)", "0",
   set_rr_delay},
  {0, "congestion", required, "NAME", for_any, native,
   "TCP congestion control of the data connections (TCP_CONGESTION), e.g. cubic, bbr; refused "
   "with the list when the kernel does not allow it", "the system's", set_congestion},
  {0, "busy-poll", optional, "US", for_any, native,
   "busy-poll the data sockets US microseconds before sleeping (SO_BUSY_POLL, "
   "SO_PREFER_BUSY_POLL; only NAPI devices, not loopback, have a queue to poll); bare: 50",
   "off", set_busy_poll},
  {0, "receive-mark", optional, "on|off", for_receiver | for_local, native,
   "TCP receive (epoll and io_uring): wake the reader once ~250 us of the connection's "
   "measured rate is queued (SO_RCVLOWAT re-measured every 5 ms; flows under ~2 Gbit/s keep "
   "the kernel's wakeups)",
   "on", set_receive_mark},
  {0, "dpdk-args", required, "\"ARGS\"", for_any, native,
   "dpdk: EAL arguments, e.g. \"--no-huge --no-pci -m 512 --vdev net_ring0\" (a --file-prefix "
   "of xttcp-PID is added unless given)", "hugepages, every PCI port", bind::parsed<&DpdkOptions::args, bind::as_is>},
  {0, "dpdk-port", required, "PORT", for_any, native,
   "dpdk: the port: id, PCI address, device name (net_ring0) or MAC", "port 0", bind::parsed<&DpdkOptions::port, bind::non_empty<"a port id, PCI address, device name or MAC">>},
  {0, "peer-mac", required, "MAC", sender_side, native,
   "dpdk: destination MAC of the frames (the receiver's or the gateway's) instead of asking ARP "
   "(IPv4) or neighbour discovery (IPv6)", "found by ARP / neighbour discovery", bind::parsed<&DpdkOptions::peer_mac, bind::non_empty<"a MAC address such as 02:00:00:00:00:01">>},
  {0, "pin", none, "", for_any, native,
   "pin each worker thread to its own CPU, one per core first (with -m n,*,...)", "off",
   bind::flag<&Layout::pin_workers>},
  {0, "interval", required, "SEC", for_any, native,
   "seconds between real-time lines and result samples, fractions allowed", "0.5",
   set_interval},
  {0, "json", required, "FILE", for_any, native,
   "write the xttcp JSON result (versioned, complete) to FILE", "", bind::parsed<&Output::native_json_file, bind::non_empty<"a file name">>},
  {0, "csv", required, "FILE", for_any, native,
   "write the measured window's intervals (--interval) to FILE as CSV", "", bind::parsed<&Output::csv_file, bind::non_empty<"a file name">>},
  {0, "json-stream", required, "FILE|-", for_any, native,
   "one JSON line per interval as it ends, and one at the end, to FILE (a FIFO works) or - (stdout; the console then goes to stderr)", "", bind::parsed<&Output::json_stream, bind::file_or_dash<"a file name or -">>},
  {0, "repeat", required, "N", for_sender, native,
   "run the test N times in a row against one receiver (run it with -H); --json keeps every "
   "run and their statistics", "1", bind::parsed<&RepeatOptions::count, bind::count<1, limits::max_repeat, "the count must be at least 1">>},
  {0, "repeat-pause", required, "SEC", for_sender, native,
   "seconds to wait between repeated tests, fractions allowed", "0", set_repeat_pause},
  {0, "source-addresses", required, "ADDR,ADDR...", sender_side, native,
   "spread the connections over these source addresses, round-robin, each bound like -a (one "
   "source address has ~28k ports towards one receiver port)", "-a's, or the kernel's choice",
   set_source_addresses},
  {0, "connect-timeout", required, "SEC", sender_side, native,
   "give up connecting to the receiver after SEC seconds (a refused connect is retried until "
   "then)", "10", bind::parsed<&Control::connect_timeout_s, bind::count<1, max_whole_seconds, "the timeout must be at least 1 second">>},
  {0, "allow", required, "CIDR,CIDR...", for_receiver, native,
   "serve only senders whose address is in these blocks (e.g. 10.0.0.0/8,fd00::/8); sync and "
   "data connections from elsewhere are closed at once, datagrams dropped, and all counted",
   "everyone", set_allow},
  {0, "max-clients", required, "N", for_receiver, native,
   "serve at most N sender hosts (distinct addresses) in one test; connections from further "
   "hosts are closed at once and counted", "no limit", bind::parsed<&AccessSpec::max_clients, bind::count<1, limits::max_clients, "at least 1 (leave it out for no limit)">>},
  {0, "max-cycle", required, "SEC", two_hosts, native,
   "the longest test (warm-up + -t + cool-down) a sender may ask this receiver for, or a "
   "receiver's answer may make this sender run; 0 = no limit (continuous senders included)",
   "3600, or -W + -t + -C if longer",
   bind::parsed<&Control::max_cycle_s, whole_seconds>},
  {0, "auth-key", required, "FILE", for_any, native,
   "prove the shared secret in FILE (16 to 4096 bytes, not readable by others) on the sync "
   "connection before anything else, with HMAC-SHA256; a receiver with it serves only senders "
   "with the same key (xttcp peers only: NTTTCP's cannot authenticate)", "",
   bind::parsed<&Control::auth_key_file, bind::non_empty<"a key file">>},
  {0, "one-port", none, "", two_hosts, native,
   "the sync connection and every data connection on port PORT alone, TCP (and with -u, UDP: "
   "the flows told apart by their ids); both ends give it: one firewall rule; each data "
   "connection opens with its test's cookie, handed out on the sync connection", "off: sync on PORT - 1, data on PORT..PORT + P - 1",
   bind::flag<&Layout::one_port>},
  {0, "reverse", none, "", for_sender, native,
   "the receiver sends and this end receives, over connections this end makes on one port "
   "(--one-port, implied; give the receiver --one-port): a sender behind NAT or a firewall "
   "tests the download direction", "off", set_reverse},
  {0, "bidir", none, "", for_sender, native,
   "both directions at once, each on its own P x n x l connections, all made by this end on "
   "one port (--one-port, implied; give the receiver --one-port): each direction measured and "
   "reported on its own", "off", set_bidir},
  {0, "wait-timeout", required, "SEC", for_receiver | for_local, native,
   "give up waiting for a sender after SEC seconds; 0 = wait forever", "0",
   bind::parsed<&Control::wait_timeout_s, whole_seconds>},

  {'h', "help", none, "", for_any, general, "print this help and exit", "", set_help},
  {0, "version", none, "", for_any, general, "print the version and exit", "", set_version},
};
// clang-format on

}  // namespace

std::span<const OptionDef> linux_options() { return table; }

}  // namespace xttcp
