#include "tools/cli/help_facts.hh"

#include <fmt/format.h>

#include "base/exit_codes.hh"

namespace xttcp {

namespace {

constexpr UsageLine linux_usage[] = {
    {"xttcp [-r [ADDR]] [options]", "receiver (the default role)"},
    {"xttcp -s ADDR [options]", "sender, connecting to the receiver at ADDR"},
    {"xttcp --local [options]", "receiver and sender in one process, over loopback"},
    {"xttcp COMMAND [ARGS]", "one of the commands below (xttcp COMMAND --help)"},
    {"xttcp --help | --version", ""},
    {"xttcp --dialect windows ...", "NTttcp for Windows' command line (with --help: its help)"},
};

constexpr std::string_view linux_notes[] = {
    "Connections: the sender opens PORTS x THREADS x CONNS connections (-P x -n x -l,\n"
    "16 x 4 x 1 by default); -m 8,*,ADDR means 8 ports with one sender thread each, unless\n"
    "-P or -n are also given.",
};

constexpr HelpExample linux_examples[] = {
    {"receiver", "xttcp -r"},
    {"", "xttcp -r 192.168.1.1 -t 30"},
    {"", "xttcp -r -m 8,0,192.168.1.1 --show-tcp-retrans --show-nic-packets eth0 -V"},
    {"sender", "xttcp -s 192.168.1.1"},
    {"", "xttcp -s -m 8,*,192.168.1.1 -n 16"},
    {"", "xttcp -s 192.168.1.1 -P 64 -n 16 -l 10 -f25001 -b 256k"},
    {"", "xttcp -s 192.168.1.1 -B 10G"},
    {"one host", "xttcp --local -P 4 -t 10 --backend io_uring --json result.json"},
};

constexpr DialectHelp linux_help{
    "network throughput test, compatible with NTTTCP-for-Linux",
    linux_usage,
    "",
    "Options may come in any order. Values may be attached (-P4, -r10.0.0.1) or follow as the\n"
    "next word; -r, -s, -f, -O, -x and -j take the next word only if it does not start with\n"
    "'-'. Values above a maximum are lowered to it with a note. As in NTTTCP-for-Linux, words\n"
    "that are neither options nor values (and all words after --) are ignored, with a note;\n"
    "one that looks like a command, a file or a second -m mapping is refused (exit 2).",
    linux_notes,
    linux_examples,
};

constexpr UsageLine windows_usage[] = {
    {"xttcp --dialect windows -r -m THREADS,CPU,HOST [...] [options]", "receiver"},
    {"xttcp --dialect windows -s -m THREADS,CPU,HOST [...] [options]", "sender"},
    {"xttcp COMMAND [ARGS]", "one of the commands below, the same in every dialect"},
};

constexpr std::string_view windows_notes[] = {
    "Modes: with -t the run is timed (-wu warm-up, -t measured, -cd cool-down); without -t,\n"
    "or with -n, each thread does -n buffers (default 20k) and -t is the longest run.\n"
    "Every thread has one connection on its own port; without -ns each thread also exchanges\n"
    "a token on its data port + 1000 before the data starts.",
    "From NTTTCP-for-Linux: -P N -> -m N,*,HOST; -N -> -ns; -b -> -l; -W/-C -> -wu/-cd;\n"
    "-x -> -xml; -V -> -v; -a ADDR -> -nic ADDR; --no-delay -> -ndl; -B -> -thr (per thread).",
};

constexpr HelpExample windows_examples[] = {
    {"receiver", "xttcp --dialect windows -r -m 4,*,192.168.1.1 -t 60"},
    {"sender", "xttcp --dialect windows -s -m 4,*,192.168.1.1 -t 60"},
    {"", "xttcp --dialect windows -s -m 4,0,192.168.1.1 2,*,192.168.1.2 -l 256k -t 30"},
    {"with NTTTCP-for-Linux (no sync on both)", "add -ns here and -N there", false},
};

constexpr DialectHelp windows_help{
    "network throughput test, NTttcp for Windows (5.40) command line",
    windows_usage,
    "(also chosen by the program name: ntttcp.exe, ntttcps[.exe] = sender, ntttcpr[.exe] =\n"
    "receiver, and ntttcp on Windows)",
    "Option names are case-insensitive (-S, -XML). Options may come in any order; a value\n"
    "follows as the next word; -a and -xml take the next word only if it does not start\n"
    "with '-'; -m takes every word up to the next option.",
    windows_notes,
    windows_examples,
};

constexpr ExitCodeDoc exit_codes[] = {
    {exit_code::success, "the run (or the command) completed"},
    {exit_code::run_failed, "the run failed (peer unreachable, socket or backend error)"},
    {exit_code::usage,
     "usage error: the command line was refused (compare: inputs not comparable)"},
    {exit_code::regression, "compare: the new runs regressed against the base"},
};

constexpr std::size_t usage_column = 32;
constexpr std::size_t example_column = 11;

}  // namespace

const DialectHelp& linux_help_facts() { return linux_help; }
const DialectHelp& windows_help_facts() { return windows_help; }
std::span<const ExitCodeDoc> exit_code_docs() { return exit_codes; }

std::string render_usage(std::span<const UsageLine> usage) {
  std::string out;
  for (const UsageLine& line : usage) {
    if (line.meaning.empty())
      out += fmt::format("  {}\n", line.command);
    else if (line.command.size() + 2 <= usage_column)
      out += fmt::format("  {:<{}}{}\n", line.command, usage_column, line.meaning);
    else
      out += fmt::format("  {}   {}\n", line.command, line.meaning);
  }
  return out;
}

std::string render_examples(std::span<const HelpExample> examples) {
  std::string out;
  for (const HelpExample& example : examples) {
    const std::string label = example.label.empty() ? "" : std::string(example.label) + ":";
    if (label.size() < example_column)
      out += fmt::format("  {:<{}}{}\n", label, example_column, example.text);
    else
      out += fmt::format("  {} {}\n", label, example.text);
  }
  return out;
}

std::string render_exit_codes() {
  std::string out;
  for (const ExitCodeDoc& exit : exit_codes)
    out += fmt::format("  {}  {}\n", exit.code, exit.meaning);
  return out;
}

}  // namespace xttcp
