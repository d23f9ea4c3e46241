// What a dialect's option rows write into while a command line is read. Rows only record; the
// rules that involve several options run once everything is read, so option order never matters.
#pragma once

#include <optional>
#include <string>

#include "tools/cli/command.hh"
#include "tools/cli/mapping.hh"

namespace xttcp {

struct ParseState {
  Command command;
  unsigned cpu_count = 1;  // configured CPUs, for -m CPU

  bool receiver_chosen = false;             // -r
  bool sender_chosen = false;               // -s
  bool local_chosen = false;                // --local
  std::optional<std::string> role_address;  // the address given to -r or -s
  std::optional<Mapping> mapping;           // -m

  void note(std::string line) { command.notes.push_back(std::move(line)); }
  TestSpec& spec() { return command.spec; }
  const TestSpec& spec() const { return command.spec; }
};

}  // namespace xttcp
