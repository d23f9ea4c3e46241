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
  EXPECT_EQ(edit_distance("bakend", "backend"), 1u);     // deletion
  EXPECT_EQ(edit_distance("backkend", "backend"), 1u);   // insertion
  EXPECT_EQ(edit_distance("backand", "backend"), 1u);    // substitution
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

}  // namespace
}  // namespace xttcp
