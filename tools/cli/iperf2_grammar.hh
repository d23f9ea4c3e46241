// How the iperf2 dialect's command line is read, getopt-style as iperf 2 reads it: bundled
// short flags (-su), values attached or in the next word (-P4, -P 4), --long value and
// --long=value. Rows record into an Iperf2Parse; tools/cli/iperf2_dialect.cc holds the rows
// and the rules between options.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/status.hh"
#include "tools/cli/command.hh"
#include "tools/cli/option_rows.hh"

namespace xttcp::iperf2_cli {

using option_rows::Arg;

// What the rows record while the line is read.
struct Iperf2Parse {
  TestSpec spec;
  Action action = Action::run;
  bool server = false;                  // -s
  std::optional<std::string> client;    // -c HOST
  std::optional<uint32_t> parallel;     // -P
  std::optional<uint32_t> time_s;       // -t
  std::optional<uint32_t> len;          // -l
  std::optional<uint64_t> rate_bps;     // -b, per stream
  std::optional<uint64_t> fq_rate_bps;  // --fq-rate, per stream
  std::optional<std::string> bind;      // -B
  bool udp = false;                     // -u
};

using OptionRow = option_rows::OptionRow<Iperf2Parse>;
using option_rows::RefusedRow;

// Reads `args` (argv without argv[0]) through the rows; fails with one line naming the option.
Status read_line(const std::vector<std::string>& args, std::span<const OptionRow> rows,
                 std::span<const RefusedRow> refused, Iperf2Parse& parse);

}  // namespace xttcp::iperf2_cli
