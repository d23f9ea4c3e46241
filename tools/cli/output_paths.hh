// Result outputs of one run (-O, -x, -j, --json, --csv, --json-stream, as a dialect spells them)
// each write their own file whole; two that name one file would overwrite each other, so the
// command line refuses them (docs/hostile-peers.md).
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.hh"

namespace xttcp {

struct NamedOutput {
  std::string_view option;                 // as the dialect spells it: "-j", "--json"
  const std::optional<std::string>* file;  // nullopt: not asked for
  bool dash_is_stdout = false;             // --json-stream: "-" is stdout, no file
};

// ok, or one line naming both options and the file. Two names are one file when they are the
// same path once made absolute and normal ("out.json", "./out.json"), or, both existing, the
// same file (a link); a device, FIFO or terminal (/dev/null, /dev/stdout) is no file that one
// output could overwrite, nor is "-" for an output that takes it as stdout (--json-stream).
Status check_distinct_outputs(std::initializer_list<NamedOutput> outputs);

}  // namespace xttcp
