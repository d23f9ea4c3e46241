#include "tools/cli/subcommands.hh"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "engine/net/address.hh"
#include "tools/cli/habits.hh"
#include "tools/cli/linux_options.hh"
#include "tools/cli/suggest.hh"

namespace xttcp {

namespace {

constexpr SubcommandDoc table[] = {
    {"compare", "xttcp compare BASE.json NEW.json [options]",
     "regression verdict of two result files (exit 3: regressed)", ""},
    {"report", "xttcp report FILE.json... -o PAGE.html [options]",
     "one HTML page of result files: plots per interval, spread, CPU, comparison", ""},
    {"compare-paths", "xttcp compare-paths [options]",
     "one workload on each backend in turn, one table with ratios against epoll", ""},
    {"sweep", "xttcp sweep -s HOST [options] AXES --json FILE",
     "a matrix of workloads against one -H receiver, each cell repeated, one file", ""},
    {"calibrate", "xttcp calibrate [-t SEC] [--repeat N] | --show",
     "measure epoll and io_uring here on loopback; --backend auto then takes the faster", ""},
    {"topology", "xttcp topology [--nic IF] [--json FILE]",
     "CPUs, NUMA nodes and NICs (queue -> IRQ -> CPU), with tuning warnings",
     "xttcp topology [--nic IF] [--json FILE]\n"
     "  The CPUs, cores and NUMA nodes of this host, the order workers are placed in, and per\n"
     "  NIC (every one with a device, or IF) its driver, channels, RSS and the table\n"
     "  queue -> IRQ -> CPU -> core/node, with tuning warnings (docs/topology.md). --json FILE\n"
     "  also writes it as JSON. Exit: 0 shown, 2 usage error, 1 failure.\n"},
    {"backends", "xttcp backends [--dpdk-args \"EAL ARGS\"]",
     "the I/O backends: available or why not, capabilities, and what auto takes",
     "xttcp backends [--dpdk-args \"EAL ARGS\"]\n"
     "  The I/O backends of this binary: each available or the reason not, what it can do,\n"
     "  and which backend --backend auto takes for TCP and for UDP (and why it passed over\n"
     "  the ones before it). With --dpdk-args, also the DPDK ports those EAL arguments find.\n"
     "  Exit: 0 listed, 2 usage error.\n"},
};

constexpr std::string_view file_extensions[] = {".json", ".xml",    ".csv", ".html",
                                                ".log",  ".ndjson", ".txt"};

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::vector<std::string> command_names() {
  std::vector<std::string> names;
  for (const SubcommandDoc& doc : table) names.emplace_back(doc.name);
  return names;
}

std::vector<std::string> long_option_spellings() {
  std::vector<std::string> names;
  for (const OptionDef& def : linux_options())
    if (!def.long_name.empty()) names.push_back(fmt::format("--{}", def.long_name));
  return names;
}

std::string command_list() {
  std::string names;
  for (const SubcommandDoc& doc : table) {
    if (!names.empty()) names += ", ";
    names += doc.name;
  }
  return names;
}

}  // namespace

std::span<const SubcommandDoc> subcommands() { return table; }

const SubcommandDoc* find_subcommand(std::string_view word) {
  for (const SubcommandDoc& doc : table)
    if (doc.name == word) return &doc;
  return nullptr;
}

bool starts_with_command_word(const std::vector<std::string>& args) {
  if (args.empty()) return false;
  const std::string& word = args.front();
  if (word.starts_with("-")) return false;
  return !typographic_dash_error(word, [](std::string_view) { return false; });
}

std::optional<std::string> command_it_resembles(std::string_view word) {
  const std::string name = lower(word);
  if (name == "help" || name == "version") return name;
  if (find_subcommand(name) != nullptr) return name;
  // Short words are too often plain words ("lo", "mlx5"): only names of 4 letters or more.
  if (name.size() < 4) return std::nullopt;
  return closest_match(name, command_names());
}

bool looks_like_file(std::string_view word) {
  if (word.find_first_of("/\\") != std::string_view::npos) return true;
  const std::string name = lower(word);
  return std::any_of(std::begin(file_extensions), std::end(file_extensions),
                     [&](std::string_view extension) {
                       return name.size() > extension.size() && name.ends_with(extension);
                     });
}

std::string unknown_command_message(std::string_view word) {
  const std::string name = lower(word);
  if (name == "help" || name == "version")
    return fmt::format("'{}': did you mean --{}?", word, name);
  if (auto habit = command_habit(word))
    return fmt::format("unknown command '{}' ({})", word, *habit);
  if (auto command = command_it_resembles(word))
    return fmt::format("unknown command '{}' (did you mean '{}'?)", word, *command);
  if (literal_family(std::string(word)) != LiteralFamily::none)
    return fmt::format(
        "unknown command '{}' (a sender to it: xttcp -s {}; a receiver on it: "
        "xttcp -r {})",
        word, word, word);
  if (looks_like_file(word))
    return fmt::format(
        "unknown command '{}': a result file follows a command (xttcp compare BASE.json "
        "NEW.json, xttcp report FILE.json -o PAGE.html)",
        word);
  if (auto option = closest_match("--" + std::string(word), long_option_spellings()))
    return fmt::format("unknown command '{}' (did you mean '{}'?)", word, *option);
  return fmt::format("unknown command '{}' (the commands are {}; options start with '-')", word,
                     command_list());
}

std::string render_subcommands() {
  std::string out;
  for (const SubcommandDoc& doc : table) out += fmt::format("  {:<15}{}\n", doc.name, doc.summary);
  return out;
}

}  // namespace xttcp
