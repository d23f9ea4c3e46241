// Splits a command line the way getopt_long splits NTTTCP-for-Linux's: bundled short flags
// (-QV), values attached or in the next word (-P4, -P 4), optional values (-r, -r10.0.0.1,
// -r 10.0.0.1 when the next word does not start with '-'), --long value, --long=value and
// unambiguous --long prefixes. Stray words (neither an option nor its value, and every word
// after "--") are kept apart, as getopt_long's permutation leaves them for a program that
// ignores them; the caller says so. A word that starts with a typographic dash ("–u") is
// refused: it was meant as an option.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/status.hh"
#include "tools/cli/option_table.hh"

namespace xttcp {

struct StrayWord {
  std::string word;
  // The option whose value the word follows, with no option between them ("--show-dev-interrupts
  // Hypervisor callback": 'callback' follows that value); nullopt otherwise.
  std::optional<OptionUse> after_value_of;
  std::optional<std::string> did_you_mean;  // "--local" for 'local'
};

struct GetoptLine {
  std::vector<OptionUse> uses;    // the options in command-line order
  std::vector<StrayWord> strays;  // in command-line order
};

// What an option the table does not have likely meant, from another tool's habits: given the
// word as typed ("-c", "--client", "-xml") and the word after it ("" if none). A word of one dash
// and several letters that the hint knows ("-xml") is refused even where getopt would read it
// as a bundle (-x with the value 'ml'): the bundle is never what was meant.
using OptionHint =
    std::function<std::optional<std::string>(std::string_view typed, std::string_view next)>;

// The split line, or one line naming the offending word and the rule (and the hint, if any).
Expected<GetoptLine> split_getopt_style(const std::vector<std::string>& args,
                                        std::span<const OptionDef> table,
                                        const OptionHint& hint = {});

// The note for the stray words of a line ("" when none): "ignoring 'callback', 'interrupts':
// not options or option values, as NTTTCP-for-Linux ignores them (--show-dev-interrupts took
// only 'Hypervisor'; quote a value that has spaces)".
std::string stray_words_note(const std::vector<StrayWord>& strays);

}  // namespace xttcp
