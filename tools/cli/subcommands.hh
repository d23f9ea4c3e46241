// The commands a line may start with (`xttcp compare BASE.json NEW.json`), the same in every
// dialect: one table that --help, the man page, the bash completion, the original's name's
// defaults and the refusal of a mistyped command all read, so a new command is named once.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace xttcp {

struct SubcommandDoc {
  std::string_view name;     // "compare"
  std::string_view usage;    // "xttcp compare BASE.json NEW.json [options]"
  std::string_view summary;  // one line: what it does
  std::string_view help;     // its --help text when the command has no parser of its own; "" else
};

std::span<const SubcommandDoc> subcommands();
const SubcommandDoc* find_subcommand(std::string_view word);

// The line starts with a word that is not an option: a command, or a mistake refused as one.
// A word with a typographic dash ("–s") is an option typed with the wrong character: the
// dialect's grammar says so.
bool starts_with_command_word(const std::vector<std::string>& args);

// The command a word that is no option nor value resembles: its name, "help" or "version"
// (case aside), or a name within typing distance ("compre" -> "compare"). nullopt otherwise.
std::optional<std::string> command_it_resembles(std::string_view word);

// A word that names a file: it has a path separator or a result file's extension (.json, .xml,
// .csv, .html, .log, .ndjson, .txt).
bool looks_like_file(std::string_view word);

// The one-line refusal of a first word that is no command, with what was likely meant:
// "unknown command 'compre' (did you mean 'compare'?)", "'help': did you mean --help?",
// sockperf's commands, an address (-s ADDR), a file, a long option without its dashes.
std::string unknown_command_message(std::string_view word);

// One line per command for --help: "  compare        regression verdict of two result files ...".
std::string render_subcommands();

}  // namespace xttcp
