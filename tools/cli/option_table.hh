// The declarative option table (neper's DEFINE_FLAG habit): one row per option drives parsing,
// the role rules and their messages, the help text and "did you mean" suggestions. A dialect is
// a table plus a splitter for its spelling conventions (getopt_style.hh for NTTTCP-for-Linux);
// every dialect's rows write into the same ParseState and so the same TestSpec.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "base/status.hh"
#include "engine/spec.hh"

namespace xttcp {

struct ParseState;

enum class ValueKind {
  none,      // a flag
  required,  // -P 4, -P4, --backend epoll, --backend=epoll
  optional,  // -r, -r10.0.0.1, -r 10.0.0.1 (next word only when it does not start with '-')
};

// The roles an option is allowed with (bit set). An ignored_on_* bit: on that role the option
// is accepted and does nothing, with a note saying so, because NTTTCP-for-Linux accepts and
// ignores it there (scripts pass the same options to both ends).
enum RoleMask : uint8_t {
  for_receiver = 1,
  for_sender = 2,
  for_local = 4,
  for_any = for_receiver | for_sender | for_local,
  ignored_on_receiver = 8,
  ignored_on_sender = 16,
};

// Sections of the help text.
enum class OptionGroup { compatible, native, general };

// Parses `value` (absent for flags and bare optional options) into the state. Mandatory.
// Errors omit the option name; the caller prefixes it ("-P: " + message).
using ApplyFn = Status (*)(ParseState& state, const std::optional<std::string>& value);

struct OptionDef {
  char short_name = 0;         // 'P' for -P; 0 = none
  std::string_view long_name;  // "fq-rate-limit" for --fq-rate-limit; "" = none
  ValueKind value = ValueKind::none;
  std::string_view value_name;  // "N", "ADDR", "FILE" in the help text
  uint8_t roles = for_any;
  OptionGroup group = OptionGroup::compatible;
  std::string_view help;          // what it does, one sentence
  std::string_view default_text;  // shown as "[default: ...]"; "" = nothing shown
  ApplyFn apply = nullptr;
};

// One option as it appeared on the command line.
struct OptionUse {
  const OptionDef* def = nullptr;
  bool spelled_long = false;  // written as --name (messages then name it that way)
  std::optional<std::string> value;
};

// "-P" or "--backend": the short form unless only a long one exists or `prefer_long`.
std::string display_name(const OptionDef& def, bool prefer_long = false);
std::string display_name(const OptionUse& use);

// "-P, --ports N", "-r [ADDR]": how the help and the man page spell a row.
std::string option_synopsis(const OptionDef& def);

// "[sender only] ", "[receiver only, ignored by the sender] ", or "" for any role.
std::string role_tag(uint8_t roles);

// How a dialect spells the role choices, for the hints in role-rule messages.
struct RoleSpellings {
  std::string_view receiver;  // "-r"
  std::string_view sender;    // "-s ADDR"
  std::string_view local;     // "--local"
};

// Fails with e.g. "-M is for the receiver only (drop -M or use -r)" when the option's row does
// not allow `role` (an option ignored on `role` is allowed).
Status check_role(const OptionUse& use, Role role, const RoleSpellings& spellings);

// The option is accepted on `role` but does nothing there (an ignored_on_* bit).
bool ignored_on(const OptionDef& def, Role role);

// The note for such an option, in the original's words: "ignore '-B' on receiver role: it does
// nothing there (sender only)".
std::string ignored_note(const OptionUse& use, Role role);

// The help lines of one group: "  -P N   [sender only] text [default: ...]", wrapped to `width`.
std::string render_option_help(std::span<const OptionDef> table, OptionGroup group,
                               std::size_t width = 100);

}  // namespace xttcp
