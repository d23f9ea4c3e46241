#include "tools/cli/iperf2_grammar.hh"

namespace xttcp::iperf2_cli {

Status read_line(const std::vector<std::string>& args, std::span<const OptionRow> rows,
                 std::span<const RefusedRow> refused, Iperf2Parse& parse) {
  return option_rows::read_line(args, rows, refused, parse, "iperf 2", "iperf --help");
}

}  // namespace xttcp::iperf2_cli
