#include "tools/cli/option_table.hh"

#include <utility>
#include <vector>

#include "tools/cli/help_layout.hh"

namespace xttcp {

namespace {

constexpr std::size_t table_help_column = 28;

}  // namespace

std::string role_tag(uint8_t roles) {
  std::string ignored;
  if (roles & ignored_on_receiver) ignored = ", ignored by the receiver";
  if (roles & ignored_on_sender) ignored = ", ignored by the sender";
  switch (roles & for_any) {
    case for_any: return "";
    case for_receiver: return "[receiver only" + ignored + "] ";
    case for_sender: return "[sender only" + ignored + "] ";
    case for_receiver | for_local: return "[receiver or --local" + ignored + "] ";
    case for_sender | for_local: return "[sender or --local" + ignored + "] ";
    case for_receiver | for_sender: return "[not with --local] ";
    default: return "[--local only] ";
  }
}

std::string option_synopsis(const OptionDef& def) {
  std::string text;
  if (def.short_name != 0) text += std::string("-") + def.short_name;
  if (def.short_name != 0 && !def.long_name.empty()) text += ", ";
  // Appended piece by piece: GCC 12's "literal" + std::string&& trips a false -Wrestrict at -O3.
  if (!def.long_name.empty()) text.append("--").append(def.long_name);
  if (def.value == ValueKind::required) text.append(" ").append(def.value_name);
  if (def.value == ValueKind::optional) text.append(" [").append(def.value_name).append("]");
  return text;
}

std::string display_name(const OptionDef& def, bool prefer_long) {
  if (def.short_name != 0 && !(prefer_long && !def.long_name.empty()))
    return std::string("-") + def.short_name;
  return "--" + std::string(def.long_name);
}

std::string display_name(const OptionUse& use) { return display_name(*use.def, use.spelled_long); }

bool ignored_on(const OptionDef& def, Role role) {
  return (role == Role::receiver && (def.roles & ignored_on_receiver)) ||
         (role == Role::sender && (def.roles & ignored_on_sender));
}

std::string ignored_note(const OptionUse& use, Role role) {
  const bool receiver = role == Role::receiver;
  std::string note = "ignore '";  // appended: GCC 12's "literal" + string&& -Wrestrict
  note.append(display_name(use)).append("' on ").append(receiver ? "receiver" : "sender");
  note.append(" role: it does nothing there (").append(receiver ? "sender" : "receiver");
  return note.append(" only)");
}

Status check_role(const OptionUse& use, Role role, const RoleSpellings& spellings) {
  const uint8_t roles = use.def->roles;
  const uint8_t mine = role == Role::receiver ? for_receiver
                       : role == Role::sender ? for_sender
                                              : for_local;
  if ((roles & mine) || ignored_on(*use.def, role)) return ok();
  const std::string name = display_name(use);
  const std::string local(spellings.local);
  if (role == Role::local)
    return fail(name + " cannot be used with " + local + " (drop " + name + " or " + local + ")");

  std::string who = local;
  std::string use_role;
  if (roles & for_receiver) {
    who = "the receiver";
    use_role = spellings.receiver;
  } else if (roles & for_sender) {
    who = "the sender";
    use_role = spellings.sender;
  }
  std::string hint;
  if (use_role.empty())
    hint = "drop " + name + " or use " + local;
  else if (roles & for_local)
    hint = "drop " + name + ", or use " + use_role + " or " + local;
  else
    hint = "drop " + name + " or use " + use_role;
  return fail(name + " is for " + who + " only (" + hint + ")");
}

std::string render_option_help(std::span<const OptionDef> table, OptionGroup group,
                               std::size_t width) {
  std::string out;
  for (const OptionDef& def : table) {
    if (def.group != group) continue;
    std::vector<std::string> tokens = split_words(role_tag(def.roles) + std::string(def.help));
    // The default stays on one line so "[default: 4, max 25600]" reads as one unit.
    if (!def.default_text.empty())
      tokens.push_back("[default: " + std::string(def.default_text) + "]");
    std::string left = "  ";  // not "  " + string&&: GCC 12's false -Wrestrict at -O3
    left += option_synopsis(def);
    append_help_row(out, std::move(left), tokens, table_help_column, width);
  }
  return out;
}

}  // namespace xttcp
