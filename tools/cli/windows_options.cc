#include "tools/cli/windows_options.hh"

#include <cctype>
#include <limits>

#include <fmt/format.h>

#include "base/units.hh"
#include "tools/cli/linux_options.hh"
#include "tools/cli/option_binders.hh"

namespace xttcp {

namespace {

using Values = std::vector<std::string>;

constexpr uint64_t max_int32 = std::numeric_limits<int32_t>::max();

// ---- value parsers ------------------------------------------------------------------------

// The original's ConvertMemoryUnit: a whole number times 1024 (k/K) or 2^20 (m/M). Unlike its
// atoi, junk is an error instead of a silent 0 or a truncated number.
Expected<uint64_t> memory_size(const std::string& text, uint64_t max) {
  uint64_t multiplier = 1;
  std::string_view digits = text;
  if (!digits.empty()) {
    switch (digits.back()) {
      case 'k':
      case 'K': multiplier = 1024; break;
      case 'm':
      case 'M': multiplier = 1024 * 1024; break;
      default: break;
    }
    if (multiplier != 1) digits.remove_suffix(1);
  }
  const bool all_digits =
      !digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos;
  if (!all_digits)
    return fail(
        fmt::format("'{}' is not a size (a whole number with an optional k or m suffix, "
                    "e.g. 64k)",
                    text));
  auto value = parse_count(digits, max / multiplier);
  if (!value) return fail(fmt::format("{} is above the maximum of {}", text, max));
  return *value * multiplier;
}

Expected<uint32_t> whole_number(const std::string& text, uint64_t min, uint64_t max) {
  auto value = parse_count(text, max);
  if (!value) return value.error();
  if (*value < min) return fail(fmt::format("{} is below the minimum of {}", text, min));
  return static_cast<uint32_t>(*value);
}

// A socket buffer size: a negative number means "leave the OS default" (stored as -1).
Expected<int64_t> socket_buffer(const std::string& text) {
  if (!text.empty() && text[0] == '-') {
    auto magnitude = memory_size(text.substr(1), UINT64_MAX);
    if (!magnitude) return fail(fmt::format("'{}' is not a size or a negative number", text));
    return int64_t{-1};
  }
  auto size = memory_size(text, max_int32);
  if (!size) return size.error();
  return static_cast<int64_t>(*size);
}

Expected<std::string> word_value(const std::string& text, const char* what) {
  if (text.empty()) return fail(fmt::format("the value is empty (expected {})", what));
  if (text[0] == '-') return fail(fmt::format("'{}' is not {}", text, what));
  return text;
}

// One THREADS,CPU,HOST mapping; all three fields are required, as the original's.
Expected<ThreadMapping> parse_windows_mapping(const std::string& text, unsigned cpu_count) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    fields.push_back(text.substr(start, comma == std::string::npos ? comma : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  bool empty_field = false;
  for (const std::string& field : fields) empty_field = empty_field || field.empty();
  if (fields.size() != 3 || empty_field)
    return fail(
        fmt::format("'{}' is not THREADS,CPU,HOST (all 3 fields are required, e.g. "
                    "4,*,10.0.0.1)",
                    text));
  ThreadMapping mapping;
  auto threads = parse_count(fields[0], 65535);
  if (!threads) return fail(fmt::format("threads in '{}': {}", text, threads.error().message));
  if (*threads == 0) return fail(fmt::format("threads must be at least 1 in '{}'", text));
  mapping.threads = static_cast<uint32_t>(*threads);
  if (fields[1] != "*") {
    auto cpu = parse_count(fields[1], UINT32_MAX);
    if (!cpu) return fail(fmt::format("CPU '{}' in '{}' is not '*' or a CPU id", fields[1], text));
    if (*cpu >= cpu_count)
      return fail(fmt::format("CPU {} in '{}' does not exist (this machine has {} CPUs: 0..{})",
                              *cpu, text, cpu_count, cpu_count - 1));
    mapping.cpu = static_cast<int>(*cpu);
  }
  if (fields[2] != "*") mapping.host = fields[2];  // '*' = any address (receiver only)
  return mapping;
}

// ---- setters: options that do more than store one value (option_binders.hh has the flags) --

// The original runs the last of -s and -r; a line with both is a mistake worth saying.
Status set_role(WindowsParseState& state, Role role) {
  if (state.role && *state.role != role)
    return fail(
        "-r and -s cannot be used together (a test needs one role per process; the "
        "original would run the last one)");
  state.role = role;
  return ok();
}

Status set_sender(WindowsParseState& state, const Values&) { return set_role(state, Role::sender); }

Status set_receiver(WindowsParseState& state, const Values&) {
  return set_role(state, Role::receiver);
}

Status set_mappings(WindowsParseState& state, const Values& values) {
  if (state.mapping_given)
    return fail("given twice (one -m takes every mapping: -m 4,*,10.0.0.1 2,0,10.0.0.2)");
  if (values.empty())
    return fail("needs at least one mapping THREADS,CPU,HOST (e.g. -m 4,*,10.0.0.1)");
  state.mapping_given = true;
  std::string text;
  for (const std::string& value : values) {
    auto mapping = parse_windows_mapping(value, state.base.cpu_count);
    if (!mapping) return mapping.error();
    state.spec().layout.mappings.push_back(*mapping);
    text += (text.empty() ? "" : " ") + value;
  }
  state.spec().layout.mapping_text = text;
  return ok();
}

Status set_length(WindowsParseState& state, const Values& values) {
  auto length = memory_size(values[0], limits::max_buffer_bytes);
  if (!length) return length.error();
  if (*length == 0) return fail("the buffer length must be at least 1 byte");
  state.spec().workload.send_buffer = static_cast<uint32_t>(*length);
  state.spec().workload.recv_buffer = static_cast<uint32_t>(*length);
  state.length_given = true;
  return ok();
}

Status set_buffer_count(WindowsParseState& state, const Values& values) {
  auto count = memory_size(values[0], std::numeric_limits<int64_t>::max());
  if (!count) return count.error();
  if (*count == 0) return fail("the number of buffers must be at least 1");
  state.spec().workload.buffer_count = *count;
  return ok();
}

Status set_base_port(WindowsParseState& state, const Values& values) {
  auto port = parse_count(values[0], UINT64_MAX);
  if (!port) return port.error();
  if (*port < 1 || *port > 65535) return fail(fmt::format("port {} is outside 1..65535", *port));
  state.spec().layout.base_port = static_cast<uint16_t>(*port);
  return ok();
}

Status set_wait_timeout(WindowsParseState& state, const Values& values) {
  auto ms = whole_number(values[0], 0, max_int32);
  if (!ms) return ms.error();
  state.spec().io.wait_timeout_ms = *ms;
  return ok();
}

Status set_async(WindowsParseState& state, const Values& values) {
  if (values.empty()) {
    if (!state.async_count_given) state.spec().io.outstanding = windows_default_async_buffers;
    return ok();
  }
  auto count = parse_count(values[0], UINT32_MAX);
  if (!count) return count.error();
  if (*count == 0 || *count > windows_max_async_buffers)
    return fail(
        fmt::format("{} outstanding buffers; use 1..{} (fewer than 64, the "
                    "WaitForMultipleObjects limit)",
                    *count, windows_max_async_buffers));
  state.spec().io.outstanding = static_cast<uint32_t>(*count);
  state.async_count_given = true;
  return ok();
}

Status set_recv_socket_buffer(WindowsParseState& state, const Values& values) {
  auto size = socket_buffer(values[0]);
  if (!size) return size.error();
  state.spec().io.socket_recv_buffer = *size;
  return ok();
}

Status set_send_socket_buffer(WindowsParseState& state, const Values& values) {
  auto size = socket_buffer(values[0]);
  if (!size) return size.error();
  state.spec().io.socket_send_buffer = *size;
  state.send_buffer_given = true;
  return ok();
}

Status set_udp_send_offload(WindowsParseState& state, const Values& values) {
  auto size = whole_number(values[0], 0, limits::max_udp_send_size);
  if (!size) return size.error();
  state.spec().io.udp_send_offload = *size;
  return ok();
}

Status set_time(WindowsParseState& state, const Values& values) {
  auto seconds = whole_number(values[0], 1, max_whole_seconds);
  if (!seconds) return seconds.error();
  state.time_s = *seconds;
  return ok();
}

Status set_warmup(WindowsParseState& state, const Values& values) {
  auto seconds = whole_number(values[0], 0, max_whole_seconds);
  if (!seconds) return seconds.error();
  state.spec().workload.warmup_s = *seconds;
  state.warmup_given = *seconds > 0;
  return ok();
}

Status set_cooldown(WindowsParseState& state, const Values& values) {
  auto seconds = whole_number(values[0], 0, max_whole_seconds);
  if (!seconds) return seconds.error();
  state.spec().workload.cooldown_s = *seconds;
  state.cooldown_given = *seconds > 0;
  return ok();
}

Status set_sample(WindowsParseState& state, const Values& values) {
  auto seconds = whole_number(values[0], 1, max_whole_seconds);
  if (!seconds) return seconds.error();
  state.spec().output.sample_s = *seconds;
  return ok();
}

Status set_nic(WindowsParseState& state, const Values& values) {
  auto address = word_value(values[0], "an address");
  if (!address) return address.error();
  state.spec().layout.source_address = *address;
  return ok();
}

Status set_xml(WindowsParseState& state, const Values& values) {
  state.spec().output.xml_file = values.empty() ? windows_default_xml_file : values[0];
  state.spec().output.xml_append = true;
  return ok();
}

Status set_numa_node(WindowsParseState& state, const Values& values) {
  auto node = whole_number(values[0], 0, 4095);
  if (!node) return node.error();
  state.spec().layout.numa_node = *node;
  return ok();
}

Status set_throttle(WindowsParseState& state, const Values& values) {
  auto rate = parse_count(values[0], UINT32_MAX);
  if (!rate) return rate.error();
  state.spec().workload.thread_rate_kBps = *rate;
  return ok();
}

Status set_help(WindowsParseState& state, const Values&) {
  state.base.command.action = Action::help;
  return ok();
}

constexpr auto none = WindowsValue::none;
constexpr auto required = WindowsValue::required;
constexpr auto optional = WindowsValue::optional;
constexpr auto list = WindowsValue::list;

// clang-format off
const WindowsOptionDef table[] = {
  // name, value, value name, help, default, apply, refusal
  {"s", none, "", "work as a sender", "", set_sender, ""},
  {"r", none, "", "work as a receiver", "receiver", set_receiver, ""},
  {"m", list, "THREADS,CPU,HOST ...",
   "one or more space-separated mappings: THREADS threads (one connection and port each), CPU "
   "'*' or the CPU id they are pinned to, HOST the receiver's address (on the receiver: the "
   "local address to listen on, '*' = any); thread i uses port -p + i", "required", set_mappings, ""},
  {"l", required, "LEN", "buffer length of each send/recv, k = 1024, m = 2^20",
   "TCP 64k, UDP 128", set_length, ""},
  {"n", required, "COUNT",
   "buffers each thread sends or receives: count mode (no -wu/-cd; -t becomes the longest run; "
   "UDP: N datagrams, then a few end markers the receiver ends on)",
   "20k without -t", set_buffer_count, ""},
  {"p", required, "PORT", "base port; thread i uses PORT + i", "5001", set_base_port, ""},
  {"sp", none, "", "synchronize data ports: senders get their data port from the receiver over "
   "the base port (-p must be the same on every instance)", "", bind::flag<&Control::port_assignment>, ""},
  {"ns", none, "", "no sync: no token handshake on port + 1000; lifts the 1000-thread limit; "
   "needed with NTTTCP-for-Linux (its -N); either all or none of the instances must use it",
   "", bind::flag<&Control::no_sync>, ""},
  {"to", required, "MS", "I/O and thread wait timeout in milliseconds; 0 = infinite", "600000",
   set_wait_timeout, ""},
  {"a", optional, "N", "asynchronous I/O with N outstanding buffers per thread (1..63); giving "
   "N also sets -sb 0 unless -sb is given", "off; bare -a = 2", set_async, ""},
  {"rb", required, "SIZE", "SO_RCVBUF if >= 0 (k/m allowed); negative = OS default", "-1",
   set_recv_socket_buffer, ""},
  {"sb", required, "SIZE", "SO_SNDBUF if >= 0 (k/m allowed); negative = OS default",
   "0 with -a N, else -1", set_send_socket_buffer, ""},
  {"ndl", none, "", "set TCP_NODELAY", "", bind::flag<&IoOptions::no_delay>, ""},
  {"u", none, "", "UDP", "TCP", bind::flag<&Workload::protocol, Protocol::udp>, ""},
  {"uc", none, "", "unconnected UDP sockets (sendto/recvfrom), synchronous I/O only", "",
   bind::flag<&IoOptions::udp_unconnected>, ""},
  {"uso", required, "SIZE", "[sender, UDP] UDP send segmentation offload with this message size",
   "0 = off", set_udp_send_offload, ""},
  {"uro", none, "", "[receiver, UDP] UDP receive coalescing", "", bind::flag<&IoOptions::udp_receive_coalescing>, ""},
  {"w", none, "", "WSASend/WSARecv-style calls (requires -a)", "", bind::flag<&AcceptedOptions::wsa>, ""},
  {"lm", none, "", "latency measurement: time every send/recv call (avg/min/max)", "",
   bind::flag<&IoOptions::time_each_call>, ""},
  {"d", none, "", "verify that received data is all 'A'", "", bind::flag<&Workload::verify_data>, ""},
  {"t", required, "SEC", "run time in seconds (time mode); with -n the longest run",
   "count mode; with -n 3 h", set_time, ""},
  {"wu", required, "SEC", "warm-up seconds (time mode only)", "0", set_warmup, ""},
  {"cd", required, "SEC", "cool-down seconds (time mode only)", "0", set_cooldown, ""},
  {"sam", required, "SEC", "split the run into samples of SEC seconds, one result block each "
   "(requires -t)", "off", set_sample, ""},
  {"v", none, "", "verbose", "", bind::flag<&Output::verbose>, ""},
  {"6", none, "", "IPv6", "IPv4", bind::flag<&Layout::ipv6>, ""},
  {"wa", none, "", "MSG_WAITALL on receives (synchronous I/O or -w)", "", bind::flag<&IoOptions::wait_all>, ""},
  {"nic", required, "ADDR", "[sender] send from the NIC with this local address", "",
   set_nic, ""},
  {"xml", optional, "FILE", "append the XML result to FILE; replaces the console tables",
   "xml.txt", set_xml, ""},
  {"na", required, "NODE", "NUMA node for threads not pinned by -m", "", set_numa_node, ""},
  {"hpt", none, "", "hide per-thread stats", "", bind::flag<&Output::hide_per_thread>, ""},
  {"nsb", none, "", "no stdio buffer (accepted, no effect: xttcp writes every console line "
   "unbuffered)", "", bind::flag<&AcceptedOptions::no_stdio_buffer>, ""},
  {"thr", required, "KB/s", "[sender] throttle each thread to KB/s (1 KB = 1024 bytes)", "0 = off",
   set_throttle, ""},
  {"h", none, "", "print this help and exit", "", set_help, ""},
  {"?", none, "", "print this help and exit", "", set_help, ""},

  // Windows-only features with no meaning on the hosts xttcp runs on, or not implemented.
  {"hv", none, "", "", "", nullptr,
   "Hyper-V sockets exist only on Windows hosts; xttcp does not support them"},
  {"qos", required, "", "", "", nullptr,
   "qWAVE QoS traffic types are a Windows API; xttcp does not support them"},
  {"x", optional, "", "", "", nullptr,
   "TransmitPackets is a Winsock extension; xttcp does not support it (the XML file is -xml)"},
  {"icp", required, "", "", "", nullptr,
   "I/O completion port thread counts are Windows-only; xttcp does not support them (-a N "
   "sets the outstanding buffers)"},
  {"cfi", none, "", "", "", nullptr,
   "CPU from idle cycle counters (QueryIdleProcessorCycleTime) is Windows-only; xttcp reads "
   "CPU time from the OS counters"},
  {"es", none, "", "", "", nullptr,
   "TCP EStats are a Windows API; xttcp does not collect them"},
  {"brn", required, "", "", "", nullptr,
   "burning CPU after each I/O is not supported by xttcp"},
  {"jm", optional, "", "", "", nullptr,
   "jitter measurement (-jm) is not supported by xttcp"},
  {"ps", required, "", "", "", nullptr,
   "packet spacing is not supported by xttcp (-thr throttles each thread)"},
  {"rt", none, "", "", "", nullptr,
   "round-trip mode is not supported by xttcp"},
};
// clang-format on

struct LinuxHint {
  std::string_view typed;
  std::string_view hint;
};

// The Linux options a Windows-dialect command line most often carries by habit, by exact
// spelling, with their Windows-dialect form: the Windows grammar is
// case-insensitive, so -P is -p and -N is -n here, which is rarely what a Linux user meant.
constexpr LinuxHint linux_hints[] = {
    {"-P",
     "-P is -p (the base port) in this dialect; NTTTCP-for-Linux's -P N (ports) is "
     "-m N,*,HOST here"},
    {"-N", "-N is -n (buffer count) in this dialect; NTTTCP-for-Linux's -N (no sync) is -ns here"},
    {"-M", "-M is -m (mappings) in this dialect; there is no multi-clients mode"},
    {"-L", "-L is -l (buffer length) in this dialect; there is no last-client mode"},
    {"-W", "-W is -w (WSASend/WSARecv) in this dialect; the warm-up is -wu SEC"},
    {"-C", "the cool-down is -cd SEC in this dialect"},
    {"-b", "the buffer length is -l LEN in this dialect"},
    {"-B", "the throttle is -thr KB/s per sender thread in this dialect"},
    {"-a", "-a is asynchronous I/O in this dialect; the source address is -nic ADDR"},
    {"-j", "this dialect has no NTTTCP JSON file (xttcp's own JSON is --json FILE)"},
    {"-f", "this dialect has no source-port option"},
    {"-e", "this dialect has no -e; xttcp always uses the chosen --backend"},
    {"-D", "-D is -d (verify data) in this dialect; there is no daemon mode"},
    {"-O", "this dialect has no log file (-O)"},
    {"-Q", "this dialect has no quiet mode (-Q)"},
    {"--no-delay", "TCP_NODELAY is -ndl in this dialect"},
    {"--show-tcp-retrans", "retransmits are always shown in this dialect"},
    {"--show-nic-packets", "packets are always shown in this dialect"},
    {"--show-dev-interrupts", "interrupts are always shown in this dialect"},
    {"--fq-rate-limit", "the throttle is -thr KB/s per sender thread in this dialect"},
    {"--local", "--local is for the Linux dialect (--dialect linux)"},
};

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

}  // namespace

std::span<const WindowsOptionDef> windows_options() { return table; }

const WindowsOptionDef* find_windows_option(std::string_view typed) {
  if (typed.size() < 2 || typed[0] != '-' || typed[1] == '-') return nullptr;
  typed.remove_prefix(1);
  for (const WindowsOptionDef& def : table)
    if (equal_ignoring_case(def.name, typed)) return &def;
  return nullptr;
}

std::optional<std::string_view> linux_flag_hint(std::string_view typed) {
  for (const LinuxHint& hint : linux_hints)
    if (hint.typed == typed) return hint.hint;
  return std::nullopt;
}

}  // namespace xttcp
