#include "tools/cli/habits.hh"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "engine/net/address.hh"

namespace xttcp {

namespace {

struct Habit {
  std::string_view typed;  // as the other tool spells it
  std::string_view hint;   // what to type here
};

constexpr std::string_view both_ways_hint =
    "both ways at once is --bidir here (both ends on one port: give the receiver --one-port)";
constexpr std::string_view reverse_hint =
    "iperf's reverse mode is --reverse here (both ends on one port: give the receiver "
    "--one-port); both ways at once is --bidir";
constexpr std::string_view socket_buffer_hint =
    "iperf's socket buffer (-w) is left to the kernel in this dialect (--dialect iperf2 has -w); "
    "-W is the warm-up";
constexpr std::string_view affinity_hint =
    "CPU affinity: -m PORTS,CPU,ADDR pins every worker to CPU, --pin spreads them one per core";

// Options of iperf 2, iperf 3 and sockperf that this dialect does not have, or that mean
// something else here.
constexpr Habit other_tools[] = {
    {"-c",
     "iperf's client: the sender is -s HOST here; -C is the cool-down; iperf 2's own "
     "command line is --dialect iperf2"},
    {"--client", "the sender is -s HOST here"},
    {"--server", "the receiver is -r here"},
    {"-R", reverse_hint},
    {"--dualtest", both_ways_hint},
    {"--full-duplex", both_ways_hint},
    {"-J", "iperf 3's JSON: --json FILE writes xttcp's result, -j FILE NTTTCP's"},
    {"-Z", "iperf 3's zero-copy sends: --zerocopy"},
    {"-A", affinity_hint},
    {"--affinity", affinity_hint},
    {"-4", "IPv4 is the default; -6 or an IPv6 address for IPv6"},
    {"-w", socket_buffer_hint},
    {"--window", socket_buffer_hint},
    {"-v", "-V is verbose; the version is --version"},
    {"-?", "the help is --help"},
    {"--time", "the measured seconds are -t SEC"},
    {"--port", "the first data port is -p PORT (the sync port is PORT - 1)"},
    {"--udp", "UDP is -u"},
    {"--tcp", "TCP is the default (UDP: -u)"},
    {"--parallel",
     "the sender opens -P ports x -n threads x -l connections (iperf's -P 8 is "
     "-P 8 -n 1 here)"},
    {"--bandwidth", "the rate limit is -B RATE, bits/s over all sender threads"},
    {"--bitrate", "the rate limit is -B RATE, bits/s over all sender threads"},
    {"--mps", "a message rate has no match: -B RATE limits bits/s, --rr measures round trips"},
    {"--len", "the size of each send and receive is -b SIZE"},
    {"--length", "the size of each send and receive is -b SIZE"},
    {"--msg-size", "the size of each send and receive is -b SIZE"},
    {"--omit", "seconds left out of the measurement at the start are -W SEC (warm-up)"},
    {"--bind", "the sender's source address is -a ADDR, the receiver's listen address -r ADDR"},
    {"--ip", "the address follows -s (sender: the receiver's) or -r (receiver: its own)"},
    {"--cport", "the sender's source ports start at -f PORT"},
    {"--logfile", "the console log is -O FILE"},
    {"--verbose", "verbose is -V"},
    {"--daemon", "daemon mode is -D"},
    {"--format", "the console's units are NTTTCP's; --json and --csv hold every figure exactly"},
    {"--nodelay", "TCP_NODELAY is --no-delay (-N is no sync here)"},
    {"--num", "runs are timed (-t SEC); NTttcp for Windows' count mode is -n in --dialect windows"},
    {"--bytes",
     "runs are timed (-t SEC); NTttcp for Windows' count mode is -n in --dialect windows"},
    {"--blockcount",
     "runs are timed (-t SEC); NTttcp for Windows' count mode is -n in --dialect windows"},
};

// NTttcp for Windows' options of more than one letter, which getopt would read as a bundle
// here (-xml is -x with the file 'ml'), and what each is in this dialect ("" = no match).
constexpr Habit windows_names[] = {
    {"xml", "-x FILE"},
    {"wu", "-W SEC"},
    {"cd", "-C SEC"},
    {"ns", "-N"},
    {"ndl", "--no-delay"},
    {"nic", "-a ADDR"},
    {"thr", "-B RATE"},
    {"uso", "--udp-gso"},
    {"uro", "--udp-gro"},
    {"sp", ""},
    {"rb", ""},
    {"sb", ""},
    {"lm", ""},
    {"sam", ""},
    {"uc", ""},
    {"hpt", ""},
    {"nsb", ""},
    {"wa", ""},
    {"na", ""},
    {"to", ""},
};

// sockperf's commands (and their short forms), typed as xttcp's first word.
constexpr Habit sockperf_commands[] = {
    {"server", "sockperf's server is the receiver here: xttcp -r [ADDR]"},
    {"sr", "sockperf's server is the receiver here: xttcp -r [ADDR]"},
    {"ping-pong", "round-trip latency is --rr here: xttcp -s ADDR --rr (the receiver: -r --rr)"},
    {"pp", "round-trip latency is --rr here: xttcp -s ADDR --rr (the receiver: -r --rr)"},
    {"under-load", "latency under load is --rr here: xttcp -s ADDR --rr --rr-depth N"},
    {"ul", "latency under load is --rr here: xttcp -s ADDR --rr --rr-depth N"},
    {"throughput", "the sender is xttcp -s ADDR (the receiver: xttcp -r)"},
    {"tp", "the sender is xttcp -s ADDR (the receiver: xttcp -r)"},
};

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(),
                                      [](unsigned char c) { return std::isdigit(c) != 0; });
}

bool has_letter(std::string_view text) {
  return std::any_of(text.begin(), text.end(),
                     [](unsigned char c) { return std::isalpha(c) != 0; });
}

// "100Mbps", "1Gbit/s", "10 Gbit", "500M/s": a number with a unit of rate.
bool rate_like(std::string_view value) {
  const std::string text = lower(value);
  for (std::string_view unit : {"bps", "bit", "bits", "/s", "bit/s", "bits/s", "b/s"})
    if (text.ends_with(unit)) return true;
  return false;
}

}  // namespace

std::optional<std::string> option_habit(std::string_view typed, std::string_view next_word) {
  if (typed == "-i") {
    if (literal_family(std::string(next_word)) != LiteralFamily::none)
      return "sockperf's -i ADDR: the address follows -s (sender: the receiver's) or -r "
             "(receiver: its own)";
    return "the report interval is --interval SEC";
  }
  if (typed == "-d")
    return "iperf 2's dual test: " + std::string(both_ways_hint) + "; -D is daemon mode";
  for (const Habit& habit : other_tools)
    if (habit.typed == typed) return std::string(habit.hint);
  if (typed.size() > 2 && typed[0] == '-' && typed[1] != '-') {
    const std::string name = lower(typed.substr(1));
    for (const Habit& habit : windows_names) {
      if (habit.typed != name) continue;
      const std::string here = habit.hint.empty() ? "it has no match in this dialect"
                                                  : fmt::format("here it is {}", habit.hint);
      return fmt::format("NTttcp for Windows' -{}: {}; Windows' command line is --dialect windows",
                         name, here);
    }
  }
  return std::nullopt;
}

std::optional<std::string> value_habit(char option, std::string_view value) {
  switch (option) {
    case 'l':
      return std::string(
          "-l is connections per sender thread; a buffer length, iperf's and NTttcp for "
          "Windows' -l, is -b SIZE");
    case 'n':
      return std::string(
          "-n is sender threads per port; an amount to send, iperf's -n, has no match: runs "
          "are timed with -t");
    case 'C':
      if (has_letter(value))
        return std::string(
            "-C is the cool-down in seconds; the congestion control, iperf 3's -C, is "
            "--congestion NAME");
      break;
    case 'B':
      if (literal_family(std::string(value)) != LiteralFamily::none)
        return std::string("-B is the rate limit; a source address, iperf's -B, is -a ADDR");
      break;
    case 'b':
      if (rate_like(value))
        return std::string("-b is NTTTCP's buffer size; a rate, iperf's -b, is -B RATE");
      break;
    case 'f':
      if (has_letter(value) && !all_digits(value))
        return std::string(
            "-f is the first source port; iperf's -f, the report's units, has no match");
      break;
    default: break;
  }
  return std::nullopt;
}

std::optional<std::string> command_habit(std::string_view word) {
  const std::string name = lower(word);
  for (const Habit& habit : sockperf_commands)
    if (habit.typed == name) return std::string(habit.hint);
  return std::nullopt;
}

}  // namespace xttcp
