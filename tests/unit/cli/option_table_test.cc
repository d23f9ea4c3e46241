// The option table itself: every row is complete and unambiguous, and the generic helpers
// (names, role rules, help rendering) behave for any dialect.
#include <set>

#include <gtest/gtest.h>

#include "tools/cli/linux_options.hh"
#include "tools/cli/option_table.hh"

namespace xttcp {
namespace {

TEST(OptionTable, EveryLinuxRowIsCompleteAndUnique) {
  std::set<char> shorts;
  std::set<std::string_view> longs;
  for (const OptionDef& def : linux_options()) {
    EXPECT_TRUE(def.short_name != 0 || !def.long_name.empty());
    EXPECT_NE(def.apply, nullptr) << display_name(def);
    EXPECT_FALSE(def.help.empty()) << display_name(def);
    if (def.value != ValueKind::none) {
      EXPECT_FALSE(def.value_name.empty()) << display_name(def);
    }
    if (def.short_name != 0) {
      EXPECT_TRUE(shorts.insert(def.short_name).second) << def.short_name;
    }
    if (!def.long_name.empty()) {
      EXPECT_TRUE(longs.insert(def.long_name).second) << def.long_name;
    }
  }
}

TEST(OptionTable, LinuxTableHasTheGetoptStringOfNtttcp) {
  // "r::s::DMLeHm:P:a:n:l:6up:f::b:B:W:t:C:NO::x::j::QVh": letter, then ':' = required value,
  // '::' = optional value.
  const std::string getopt = "r::s::DMLeHm:P:a:n:l:6up:f::b:B:W:t:C:NO::x::j::QVh";
  for (std::size_t at = 0; at < getopt.size();) {
    const char letter = getopt[at++];
    ValueKind expected = ValueKind::none;
    if (getopt.compare(at, 2, "::") == 0) {
      expected = ValueKind::optional;
      at += 2;
    } else if (at < getopt.size() && getopt[at] == ':') {
      expected = ValueKind::required;
      at += 1;
    }
    const OptionDef* found = nullptr;
    for (const OptionDef& def : linux_options())
      if (def.short_name == letter) found = &def;
    ASSERT_NE(found, nullptr) << letter;
    EXPECT_EQ(found->value, expected) << letter;
  }
  for (const char* name : {"show-tcp-retrans", "show-nic-packets", "show-dev-interrupts",
                           "fq-rate-limit", "no-delay"}) {
    bool present = false;
    for (const OptionDef& def : linux_options()) present = present || def.long_name == name;
    EXPECT_TRUE(present) << name;
  }
}

Status no_op(ParseState&, const std::optional<std::string>&) { return ok(); }

const OptionDef sample_rows[] = {
    {'x', "extra", ValueKind::required, "N", for_sender, OptionGroup::compatible,
     "a sender option whose help text is long enough to need wrapping when the width is small", "7",
     no_op},
    {0, "quiet-mode", ValueKind::none, "", for_receiver | for_local, OptionGroup::native,
     "a native receiver option", "", no_op},
};

TEST(OptionTable, DisplayNames) {
  EXPECT_EQ(display_name(sample_rows[0]), "-x");
  EXPECT_EQ(display_name(sample_rows[0], true), "--extra");
  EXPECT_EQ(display_name(sample_rows[1]), "--quiet-mode");
  EXPECT_EQ(display_name(OptionUse{&sample_rows[0], true, std::nullopt}), "--extra");
}

TEST(OptionTable, RoleRulesUseTheDialectsSpellings) {
  const RoleSpellings windows_like{"-r", "-s", "--local"};
  OptionUse sender_only{&sample_rows[0], false, std::nullopt};
  EXPECT_TRUE(check_role(sender_only, Role::sender, windows_like).has_value());
  EXPECT_EQ(check_role(sender_only, Role::receiver, windows_like).error().message,
            "-x is for the sender only (drop -x or use -s)");
  EXPECT_EQ(check_role(sender_only, Role::local, windows_like).error().message,
            "-x cannot be used with --local (drop -x or --local)");
  OptionUse receiver_side{&sample_rows[1], true, std::nullopt};
  EXPECT_TRUE(check_role(receiver_side, Role::local, windows_like).has_value());
  EXPECT_EQ(check_role(receiver_side, Role::sender, windows_like).error().message,
            "--quiet-mode is for the receiver only (drop --quiet-mode, or use -r or --local)");
}

TEST(OptionTable, HelpIsGroupedTaggedAndWrapped) {
  const std::string compatible = render_option_help(sample_rows, OptionGroup::compatible, 60);
  EXPECT_EQ(compatible,
            "  -x, --extra N             [sender only] a sender option\n"
            "                            whose help text is long enough\n"
            "                            to need wrapping when the width\n"
            "                            is small [default: 7]\n");
  const std::string native = render_option_help(sample_rows, OptionGroup::native);
  EXPECT_EQ(native, "  --quiet-mode              [receiver or --local] a native receiver option\n");
  EXPECT_EQ(render_option_help(sample_rows, OptionGroup::general), "");
}

}  // namespace
}  // namespace xttcp
