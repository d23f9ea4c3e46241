// Edit distance and "did you mean" candidates.
#include <gtest/gtest.h>

#include "tools/cli/suggest.hh"

namespace xttcp {
namespace {

TEST(EditDistance, Basics) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("backend", "backend"), 0u);
  EXPECT_EQ(edit_distance("bakend", "backend"), 1u);    // deletion
  EXPECT_EQ(edit_distance("backkend", "backend"), 1u);  // insertion
  EXPECT_EQ(edit_distance("backand", "backend"), 1u);   // substitution
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(ClosestMatch, SuggestsOnlyPlausibleTypos) {
  const std::vector<std::string> names = {"--backend", "--json", "--local", "--no-delay"};
  EXPECT_EQ(closest_match("--bakend", names), "--backend");
  EXPECT_EQ(closest_match("--jsno", names), "--json");
  EXPECT_EQ(closest_match("--nodelay", names), "--no-delay");
  EXPECT_EQ(closest_match("--completely-different", names), std::nullopt);
  EXPECT_EQ(closest_match("--x", names), std::nullopt);
  EXPECT_EQ(closest_match("anything", {}), std::nullopt);
}

TEST(TypographicDash, NamesTheCharacterAndWhatToType) {
  auto long_names = [](std::string_view name) { return name == "json" || name == "backend"; };
  EXPECT_EQ(typographic_dash_error("\u2013u", long_names),
            "'\u2013u' starts with a typographic dash (U+2013 EN DASH), not the ASCII '-': type "
            "'-u'");
  EXPECT_TRUE(typographic_dash_error("\u2014\u2014backend", long_names)
                  .value_or("")
                  .ends_with("(U+2014 EM DASH), not the ASCII '-': type '--backend'"));
  // Two dashes of any kind, or one before a long option's name, mean "--".
  for (const char* typed : {"\u2013-json", "-\u2013json", "\u2014json", "\u2212\u2212json"})
    EXPECT_TRUE(typographic_dash_error(typed, long_names).value_or("").ends_with("type '--json'"))
        << typed;
  EXPECT_TRUE(typographic_dash_error("\u2014u", long_names).value_or("").ends_with("type '-u'"));
  EXPECT_TRUE(
      typographic_dash_error("\u2212t", long_names).value_or("").find("U+2212 MINUS SIGN") !=
      std::string::npos);
  EXPECT_TRUE(typographic_dash_error("\uff0dns", long_names).value_or("").ends_with("type '-ns'"));
  EXPECT_EQ(typographic_dash_error("\u2013", long_names),
            "'\u2013' starts with a typographic dash (U+2013 EN DASH), not the ASCII '-'");
  // Not a typographic dash at its start: nothing to say.
  for (const char* word : {"-u", "--json", "u\u2013", "10.0.0.1", "", "\u00e9"})
    EXPECT_EQ(typographic_dash_error(word, long_names), std::nullopt) << word;
}

}  // namespace
}  // namespace xttcp
