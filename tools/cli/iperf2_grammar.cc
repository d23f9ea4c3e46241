#include "tools/cli/iperf2_grammar.hh"

#include <fmt/format.h>

namespace xttcp::iperf2_cli {

namespace {

// An option found on the line: the row it names (run or refused) and how it was spelled.
struct Found {
  const OptionRow* row = nullptr;
  const RefusedRow* refused = nullptr;
  Arg arg() const { return row ? row->arg : refused->arg; }
};

Found find_short(char name, std::span<const OptionRow> rows, std::span<const RefusedRow> refused) {
  for (const OptionRow& row : rows)
    if (row.short_name == name) return {&row, nullptr};
  for (const RefusedRow& row : refused)
    if (row.short_name == name) return {nullptr, &row};
  return {};
}

Found find_long(std::string_view name, std::span<const OptionRow> rows,
                std::span<const RefusedRow> refused) {
  for (const OptionRow& row : rows)
    if (name == row.long_name) return {&row, nullptr};
  for (const RefusedRow& row : refused)
    if (name == row.long_name) return {nullptr, &row};
  return {};
}

Status apply(const Found& found, const std::string& name, const std::string& value,
             Iperf2Parse& parse) {
  if (found.refused) return fail(fmt::format("{}: not served: {}", name, found.refused->reason));
  if (Status applied = found.row->apply(parse, value); !applied)
    return fail(fmt::format("{}: {}", name, applied.error().message));
  return ok();
}

}  // namespace

Status read_line(const std::vector<std::string>& args, std::span<const OptionRow> rows,
                 std::span<const RefusedRow> refused, Iperf2Parse& parse) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    auto next_value = [&](const std::string& name) -> Expected<std::string> {
      if (i + 1 >= args.size()) return fail(fmt::format("{} needs a value", name));
      return args[++i];
    };
    if (word.starts_with("--") && word.size() > 2) {
      const std::size_t equals = word.find('=');
      const std::string name =
          word.substr(2, equals == std::string::npos ? std::string::npos : equals - 2);
      const Found found = find_long(name, rows, refused);
      const std::string shown = "--" + name;
      if (!found.row && !found.refused)
        return fail(fmt::format("{}: not an iperf 2 option (see 'iperf --help')", shown));
      std::string value;
      if (equals != std::string::npos) {
        if (found.arg() == Arg::none) return fail(fmt::format("{} takes no value", shown));
        value = word.substr(equals + 1);
      } else if (found.arg() == Arg::required) {
        auto taken = next_value(shown);
        if (!taken) return taken.error();
        value = *taken;
      }
      if (Status done = apply(found, shown, value, parse); !done) return done;
      continue;
    }
    if (word.size() < 2 || word[0] != '-')
      return fail(fmt::format("'{}' is not an option (iperf 2 takes no other words)", word));
    for (std::size_t k = 1; k < word.size(); ++k) {
      const Found found = find_short(word[k], rows, refused);
      const std::string shown = fmt::format("-{}", word[k]);
      if (!found.row && !found.refused)
        return fail(fmt::format("{}: not an iperf 2 option (see 'iperf --help')", shown));
      std::string value;
      if (found.arg() != Arg::none) {
        if (k + 1 < word.size()) {
          value = word.substr(k + 1);
        } else if (found.arg() == Arg::required) {
          auto taken = next_value(shown);
          if (!taken) return taken.error();
          value = *taken;
        }
        k = word.size();
      }
      if (Status done = apply(found, shown, value, parse); !done) return done;
    }
  }
  return ok();
}

}  // namespace xttcp::iperf2_cli
