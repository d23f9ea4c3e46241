// Splits a command line the way getopt_long splits NTTTCP-for-Linux's: bundled short flags
// (-QV), values attached or in the next word (-P4, -P 4), optional values (-r, -r10.0.0.1,
// -r 10.0.0.1 when the next word does not start with '-'), --long value, --long=value and
// unambiguous --long prefixes. Unlike getopt, stray words are errors, not silently ignored.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "base/status.hh"
#include "tools/cli/option_table.hh"

namespace xttcp {

// The options in command-line order, or one line naming the offending word and the rule.
Expected<std::vector<OptionUse>> split_getopt_style(const std::vector<std::string>& args,
                                                    std::span<const OptionDef> table);

}  // namespace xttcp
