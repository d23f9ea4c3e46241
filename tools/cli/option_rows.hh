// How the iperf dialects' command lines are read, getopt-style as iperf 2 and iperf3 read
// theirs: bundled short flags (-su), values attached or in the next word (-P4, -P 4), --long
// value and --long=value. Rows record into a dialect's own parse state; each dialect holds its
// rows and the rules between its options.
#pragma once

#include <fmt/format.h>

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.hh"

namespace xttcp::option_rows {

enum class Arg { none, required, optional };

// One option the dialect runs: its error lines read "-P: <the rule>".
template <class Parse>
struct OptionRow {
  char short_name;  // 0: long only
  const char* long_name;
  Arg arg;
  Status (*apply)(Parse&, const std::string& value);
};

// One option the original documents that xttcp refuses, and why.
struct RefusedRow {
  char short_name;
  const char* long_name;
  Arg arg;
  const char* reason;
};

// Reads `args` (argv without argv[0]) through the rows; fails with one line naming the option.
// `tool` and `help` name the original in the errors ("iperf 2", "iperf --help").
template <class Parse>
Status read_line(const std::vector<std::string>& args, std::span<const OptionRow<Parse>> rows,
                 std::span<const RefusedRow> refused, Parse& parse, std::string_view tool,
                 std::string_view help) {
  const std::string foreign = fmt::format("not an {} option (see '{}')", tool, help);
  struct Found {
    const OptionRow<Parse>* row = nullptr;
    const RefusedRow* refused = nullptr;
    Arg arg() const { return row ? row->arg : refused->arg; }
  };
  auto find = [&](auto matches) {
    for (const OptionRow<Parse>& row : rows)
      if (matches(row.short_name, row.long_name)) return Found{&row, nullptr};
    for (const RefusedRow& row : refused)
      if (matches(row.short_name, row.long_name)) return Found{nullptr, &row};
    return Found{};
  };
  auto apply = [&](const Found& found, const std::string& name, const std::string& value) {
    if (found.refused)
      return Status(fail(fmt::format("{}: not served: {}", name, found.refused->reason)));
    if (Status applied = found.row->apply(parse, value); !applied)
      return Status(fail(fmt::format("{}: {}", name, applied.error().message)));
    return ok();
  };
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
      const Found found = find([&](char, const char* long_name) { return name == long_name; });
      const std::string shown = "--" + name;
      if (!found.row && !found.refused) return fail(fmt::format("{}: {}", shown, foreign));
      std::string value;
      if (equals != std::string::npos) {
        if (found.arg() == Arg::none) return fail(fmt::format("{} takes no value", shown));
        value = word.substr(equals + 1);
      } else if (found.arg() == Arg::required) {
        auto taken = next_value(shown);
        if (!taken) return taken.error();
        value = *taken;
      }
      if (Status done = apply(found, shown, value); !done) return done;
      continue;
    }
    if (word.size() < 2 || word[0] != '-')
      return fail(fmt::format("'{}' is not an option ({} takes no other words)", word, tool));
    for (std::size_t k = 1; k < word.size(); ++k) {
      const char letter = word[k];
      const Found found = find([&](char short_name, const char*) { return short_name == letter; });
      const std::string shown = fmt::format("-{}", letter);
      if (!found.row && !found.refused) return fail(fmt::format("{}: {}", shown, foreign));
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
      if (Status done = apply(found, shown, value); !done) return done;
    }
  }
  return ok();
}

}  // namespace xttcp::option_rows
