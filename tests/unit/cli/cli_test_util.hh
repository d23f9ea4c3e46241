// Shared helpers for the command-line tests: parse a line with a fixed CPU count so the
// results do not depend on the machine.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tools/cli/command.hh"

namespace xttcp::test {

inline constexpr unsigned test_cpu_count = 8;

// Splits on spaces; use the vector overload for words with spaces or empty words.
inline std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream stream(line);
  std::string word;
  while (stream >> word) out.push_back(word);
  return out;
}

inline Expected<Command> parse(const std::vector<std::string>& args) {
  return parse_linux_dialect(args, test_cpu_count);
}

inline Expected<Command> parse(const std::string& line) { return parse(words(line)); }

// The command, failing the test with the error line when parsing failed.
inline Command parse_ok(const std::string& line) {
  auto command = parse(line);
  EXPECT_TRUE(command.has_value()) << "'" << line << "': " << command.error().message;
  return command ? *command : Command{};
}

inline std::string parse_error(const std::string& line) {
  auto command = parse(line);
  EXPECT_FALSE(command.has_value()) << "'" << line << "' was accepted";
  return command ? "" : command.error().message;
}

inline bool has_note(const Command& command, const std::string& part) {
  for (const std::string& note : command.notes)
    if (note.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace xttcp::test
