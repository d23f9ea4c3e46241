// `xttcp compare`'s command line: every bad word is one line naming the option and the rule.
#include <gtest/gtest.h>

#include "tools/compare/compare_command.hh"

namespace xttcp {
namespace {

std::string error_of(const std::vector<std::string>& args) {
  auto r = parse_compare_args(args);
  return r ? "" : r.error().message;
}

TEST(CompareArgs, Defaults) {
  auto r = parse_compare_args({"a.json", "b.json"});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->base_path, "a.json");
  EXPECT_EQ(r->new_path, "b.json");
  EXPECT_DOUBLE_EQ(r->options.threshold_pct, 5);
  EXPECT_DOUBLE_EQ(r->options.alpha, 0.05);
  EXPECT_FALSE(r->json_file);
  EXPECT_FALSE(r->allow_different_workload);
}

TEST(CompareArgs, Options) {
  auto r = parse_compare_args({"--threshold", "2.5", "a", "--json", "-", "b", "--alpha", "0.01",
                               "--allow-different-workload", "--judge-all"});
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(r->options.threshold_pct, 2.5);
  EXPECT_DOUBLE_EQ(r->options.alpha, 0.01);
  EXPECT_EQ(*r->json_file, "-");
  EXPECT_TRUE(r->allow_different_workload);
  EXPECT_TRUE(r->options.judge_all);
}

TEST(CompareArgs, BadLines) {
  EXPECT_EQ(error_of({"a"}), "compare: expected two result files, BASE.json NEW.json (got 1)");
  EXPECT_EQ(error_of({"--threshold", "x", "a", "b"}),
            "--threshold: 'x' is not a percentage above 0 (e.g. 5)");
  EXPECT_EQ(error_of({"--threshold", "0", "a", "b"}),
            "--threshold: '0' is not a percentage above 0 (e.g. 5)");
  EXPECT_EQ(error_of({"--alpha", "1", "a", "b"}),
            "--alpha: '1' is not a significance level between 0 and 1 (e.g. 0.05)");
  EXPECT_EQ(error_of({"a", "b", "--json"}), "--json needs a value");
  EXPECT_NE(error_of({"a", "b", "--force"}).find("unknown option '--force'"), std::string::npos);
}

}  // namespace
}  // namespace xttcp
