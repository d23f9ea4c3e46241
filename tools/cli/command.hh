// What the user asked the xttcp program to do: one action and, for a run, the validated TestSpec.
// Each command-line dialect is a grammar that produces a Command; the program never sees argv.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/exit_codes.hh"
#include "base/status.hh"
#include "engine/spec.hh"

namespace xttcp {

enum class Action { run, help, version, backends, topology };

// `xttcp topology [--nic IF] [--json FILE]`: which NIC to show (empty: every NIC with a device)
// and where to write the native JSON form (empty: none).
struct TopologyRequest {
  std::string nic;
  std::string json_file;
};

struct Command {
  Action action = Action::run;
  TestSpec spec;
  std::vector<std::string> notes;  // INFO lines to print before the run, e.g. a clamped value
  TopologyRequest topology;        // Action::topology only
};

// NTTTCP-for-Linux command line plus xttcp's native long options. `args` exclude argv[0].
// Errors are one line naming the option and the rule, e.g. "-P: 'abc' is not a whole number".
Expected<Command> parse_linux_dialect(const std::vector<std::string>& args);

// Same, with the number of configured CPUs given (for -m CPU checks); the overload above uses
// sysconf(_SC_NPROCESSORS_CONF).
Expected<Command> parse_linux_dialect(const std::vector<std::string>& args, unsigned cpu_count);

// Full --help text: usage, every option with its default and roles, examples, exit codes.
std::string linux_dialect_help();

// NTttcp for Windows 5.40's command line (case-insensitive names, -m with several mappings,
// -xml, -a, -rb/-sb, -n count mode, ...) plus xttcp's native long options. `args` exclude
// argv[0]. The spec has dialect = Dialect::windows; every option lands in the spec's part for what
// it means (engine/spec.hh). Errors are one line naming the option and the rule; options that exist
// only on Windows hosts
// (-hv, -qos, -x, ...) are refused with the reason.
Expected<Command> parse_windows_dialect(const std::vector<std::string>& args, unsigned cpu_count);
Expected<Command> parse_windows_dialect(const std::vector<std::string>& args);

// Full help text of the Windows dialect.
std::string windows_dialect_help();

// iperf 2.1.8's command line (docs/iperf2.md): -s, -c HOST, -P, -t, -u, -b, -e, -y C, ...
// with iperf 2's defaults; the spec has dialect = Dialect::iperf2. Options xttcp does not run
// are refused in one line naming the option and why.
Expected<Command> parse_iperf2_dialect(const std::vector<std::string>& args);

// Full help text of the iperf2 dialect.
std::string iperf2_dialect_help();

// iperf3 3.12's command line (docs/iperf3.md): its server, -s, with the options a server keeps
// for itself (-p, -B, -i, -f, -1, -V); a test's settings come from its client over the wire.
// The spec has dialect = Dialect::iperf3 and layout.one_port. Options xttcp does not run are
// refused in one line naming the option and why.
Expected<Command> parse_iperf3_dialect(const std::vector<std::string>& args);

// Full help text of the iperf3 dialect.
std::string iperf3_dialect_help();

enum class CliDialect { linux, windows, iperf2, iperf3 };

// Which grammar reads the command line: `--dialect linux|windows|iperf2|iperf3` (or --dialect=...)
// anywhere in `args` wins and is removed from them; otherwise the program name (basename, any
// case): ntttcp.exe, ntttcps[.exe], ntttcpr[.exe] and, on Windows builds, ntttcp choose windows;
// any iperf[.exe] chooses iperf2, any iperf3[.exe] iperf3; any other name (xttcp, and ntttcp on
// Linux, NTTTCP-for-Linux's own name) chooses the host's dialect: linux on a Linux build, windows
// on a Windows build. When the choice is windows and the name is ntttcps / ntttcpr, "-s" / "-r" is
// inserted at the front of `args`, so an explicit -r / -s later on the line still wins, as in the
// original.
Expected<CliDialect> choose_dialect(std::string_view program_name, std::vector<std::string>& args);

}  // namespace xttcp
