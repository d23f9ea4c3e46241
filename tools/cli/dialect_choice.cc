// Which command-line grammar reads argv: an explicit --dialect, else the program's name.
#include <algorithm>
#include <cctype>

#include "tools/cli/command.hh"
#include "tools/cli/subcommands.hh"

namespace xttcp {

namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view basename_of(std::string_view path) {
  const std::size_t slash = path.find_last_of("/\\");
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// Bare "ntttcp" is NTTTCP-for-Linux's program name too: only a Windows build reads it as the
// Windows tool, so a Linux symlink named ntttcp keeps the Linux grammar (-n, -l, -P differ).
// Any other name (xttcp, xttcp.exe) takes the host's own tool's grammar.
#ifdef _WIN32
constexpr bool bare_ntttcp_is_windows = true;
constexpr CliDialect host_dialect = CliDialect::windows;
#else
constexpr bool bare_ntttcp_is_windows = false;
constexpr CliDialect host_dialect = CliDialect::linux;
#endif

struct NameChoice {
  CliDialect dialect = host_dialect;
  const char* implied_role = nullptr;  // "-s" / "-r"
};

NameChoice choice_from_name(std::string_view program_name) {
  std::string name = lower(basename_of(program_name));
  const bool exe = name.ends_with(".exe");
  if (exe) name.resize(name.size() - 4);
  if (name == "ntttcps") return {CliDialect::windows, "-s"};
  if (name == "ntttcpr") return {CliDialect::windows, "-r"};
  if (name == "ntttcp" && (exe || bare_ntttcp_is_windows)) return {CliDialect::windows, nullptr};
  if (name == "iperf") return {CliDialect::iperf2, nullptr};
  if (name == "iperf3") return {CliDialect::iperf3, nullptr};
  return {};
}

Expected<CliDialect> dialect_named(const std::string& value) {
  const std::string name = lower(value);
  if (name == "linux") return CliDialect::linux;
  if (name == "windows") return CliDialect::windows;
  if (name == "iperf2") return CliDialect::iperf2;
  if (name == "iperf3") return CliDialect::iperf3;
  return fail("--dialect: '" + value + "' is not linux, windows, iperf2 or iperf3");
}

const char* dialect_name(CliDialect dialect) {
  switch (dialect) {
    case CliDialect::linux: return "linux";
    case CliDialect::windows: return "windows";
    case CliDialect::iperf2: return "iperf2";
    case CliDialect::iperf3: return "iperf3";
  }
  return "?";
}

}  // namespace

Expected<CliDialect> choose_dialect(std::string_view program_name, std::vector<std::string>& args) {
  std::optional<CliDialect> chosen;
  for (std::size_t i = 0; i < args.size();) {
    std::optional<std::string> value;
    std::size_t words = 1;
    if (args[i] == "--dialect") {
      if (i + 1 >= args.size())
        return fail("--dialect needs a value (linux, windows, iperf2 or iperf3)");
      value = args[i + 1];
      words = 2;
    } else if (args[i].starts_with("--dialect=")) {
      value = args[i].substr(10);
    } else {
      ++i;
      continue;
    }
    auto dialect = dialect_named(*value);
    if (!dialect) return dialect.error();
    if (chosen && *chosen != *dialect)
      return fail(std::string("--dialect is given twice with different values (") +
                  dialect_name(*chosen) + " and " + dialect_name(*dialect) + ")");
    chosen = *dialect;
    args.erase(args.begin() + static_cast<std::ptrdiff_t>(i),
               args.begin() + static_cast<std::ptrdiff_t>(i + words));
  }
  const NameChoice by_name = choice_from_name(program_name);
  const CliDialect dialect = chosen.value_or(by_name.dialect);
  // The name's role unless the line names one (it wins, as in the original).
  const bool role_given = std::any_of(args.begin(), args.end(), [](const std::string& word) {
    return word.size() == 2 && word[0] == '-' &&
           (std::tolower(static_cast<unsigned char>(word[1])) == 'r' ||
            std::tolower(static_cast<unsigned char>(word[1])) == 's');
  });
  // Not before a command (ntttcps compare A B) nor a word refused as one.
  if (dialect == CliDialect::windows && by_name.implied_role != nullptr && !role_given &&
      !starts_with_command_word(args))
    args.insert(args.begin(), by_name.implied_role);
  return dialect;
}

}  // namespace xttcp
