// JSON from a peer or a file is bounded in size and depth before it is parsed (a document
// nested 10^6 deep once crashed a receiver), and a peer's result is typed and checked.
#include "engine/report/bounded_json.hh"

#include <gtest/gtest.h>

#include <string>

#include "engine/report/native_json.hh"
#include "tests/unit/report/sample_results.hh"

namespace xttcp {
namespace {

std::string nested(size_t depth, char open = '[', char close = ']') {
  return std::string(depth, open) + std::string(depth, close);
}

TEST(JsonNestingDepth, CountsArraysAndObjectsOutsideStrings) {
  EXPECT_EQ(json_nesting_depth("1", 10), 0u);
  EXPECT_EQ(json_nesting_depth("{}", 10), 1u);
  EXPECT_EQ(json_nesting_depth(R"({"a": [1, {"b": []}]})", 10), 4u);
  EXPECT_EQ(json_nesting_depth(R"({"a": "[[[[[[{{{{"})", 10), 1u);
  EXPECT_EQ(json_nesting_depth(R"(["\"[[[[", []])", 10), 2u);  // an escaped quote stays inside
  EXPECT_EQ(json_nesting_depth(R"(["\\", [[]]])", 10), 3u);    // an escaped backslash does not
}

TEST(JsonNestingDepth, StopsOnceOverTheLimit) {
  EXPECT_EQ(json_nesting_depth(nested(1'000'000), 16), 17u);
  EXPECT_EQ(json_nesting_depth(nested(16), 16), 16u);
}

TEST(ParseBoundedJson, RefusesDeepAndLargeDocumentsNamingTheLimit) {
  const JsonLimits limits{1000, 8};
  auto deep = parse_bounded_json(nested(9), limits, "peer result");
  ASSERT_FALSE(deep);
  EXPECT_EQ(deep.error().message, "peer result: nested more than 8 deep");
  auto large = parse_bounded_json(std::string(1001, ' '), limits, "peer result");
  ASSERT_FALSE(large);
  EXPECT_EQ(large.error().message, "peer result: 1001 bytes, over the limit of 1000");
  auto broken = parse_bounded_json("{not json", limits, "peer result");
  ASSERT_FALSE(broken);
  EXPECT_EQ(broken.error().message, "peer result: not valid JSON");
  EXPECT_TRUE(parse_bounded_json(nested(8), limits, "x"));
}

TEST(ParseNativeJson, ADocumentNestedAMillionDeepIsRefusedQuickly) {
  auto parsed =
      parse_native_json(R"({"schema": "xttcp-result", "peer": )" + nested(1'000'000) + "}");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().message, "native result: nested more than 16 deep");
}

TEST(ParsePeerResult, TakesAResultOfTheExpectedRoleWithoutItsPeer) {
  Result sender = test::sample_sender_verbose();
  sender.peer = std::make_shared<const Result>(test::sample_receiver());
  auto parsed = parse_peer_result(render_native_json(sender), Role::sender);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->total_bytes, sender.total_bytes);
  EXPECT_EQ(parsed->peer, nullptr);  // a peer never speaks for a third party

  auto wrong_role = parse_peer_result(render_native_json(sender), Role::receiver);
  ASSERT_FALSE(wrong_role);
  EXPECT_EQ(wrong_role.error().message,
            "peer result: it is a sender's result, expected a receiver's");
  EXPECT_FALSE(parse_peer_result("{}", Role::sender));
  EXPECT_FALSE(parse_peer_result(nested(100, '{', '}'), Role::sender));
}

TEST(ParseNativeJson, AFileKeepsItsPeerAsAResult) {
  Result sender = test::sample_sender_verbose();
  sender.peer = std::make_shared<const Result>(test::sample_receiver());
  auto parsed = parse_native_json(render_native_json(sender));
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_NE(parsed->peer, nullptr);
  EXPECT_EQ(parsed->peer->role, Role::receiver);
  EXPECT_EQ(parsed->peer->total_bytes, test::sample_receiver().total_bytes);
}

}  // namespace
}  // namespace xttcp
