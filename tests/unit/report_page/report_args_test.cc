// `xttcp report`'s command line: what it takes, and one line naming the option for every bad one.
#include <gtest/gtest.h>

#include "tools/report/report_args.hh"

namespace xttcp {
namespace {

std::string error_of(std::vector<std::string> words) {
  auto request = parse_report_args(words);
  EXPECT_FALSE(request) << "accepted";
  return request ? "" : request.error().message;
}

TEST(ReportArgs, FilesOutputAndOptions) {
  auto r = parse_report_args(
      {"base.json", "-o", "page.html", "new.json", "--title", "driver 2.1", "--threshold", "2.5"});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->files, (std::vector<std::string>{"base.json", "new.json"}));
  EXPECT_EQ(r->output, "page.html");
  EXPECT_EQ(r->title, "driver 2.1");
  ASSERT_TRUE(r->threshold_pct);
  EXPECT_DOUBLE_EQ(*r->threshold_pct, 2.5);
}

TEST(ReportArgs, Defaults) {
  auto r = parse_report_args({"one.json", "--output", "p.html"});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->title, "xttcp report");
  EXPECT_FALSE(r->threshold_pct);  // compare's own default
}

TEST(ReportArgs, BadLines) {
  EXPECT_EQ(error_of({"-o", "p.html"}),
            "report: needs at least one result file (written by --json)");
  EXPECT_EQ(error_of({"a.json"}), "report: -o FILE is required (the HTML page)");
  EXPECT_EQ(error_of({"a.json", "-o"}), "report: -o needs a file name (the HTML page)");
  EXPECT_EQ(error_of({"a.json", "-o", "p.html", "--threshold", "-1"}),
            "report: --threshold '-1' is not a percentage from 0 to 1000");
  EXPECT_EQ(error_of({"a.json", "-o", "p.html", "--threshold", "5x"}),
            "report: --threshold '5x' is not a percentage from 0 to 1000");
  EXPECT_EQ(error_of({"a.json", "-o", "p.html", "--title"}), "report: --title needs a text");
  EXPECT_EQ(error_of({"a.json", "-o", "p.html", "--csv"}),
            "report: unknown option '--csv' (known: -o, --title, --threshold, --time-limit)");
  for (const char* seconds : {"0", "-5", "1.5", "86401", "x"})
    EXPECT_EQ(error_of({"a.json", "-o", "p.html", "--time-limit", seconds}),
              std::string("report: --time-limit '") + seconds +
                  "' is not a whole number of seconds from 1 to 86400");
}

TEST(ReportArgs, TimeLimit) {
  auto r = parse_report_args({"a.json", "-o", "p.html", "--time-limit", "30"});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->time_limit_s, 30u);
  EXPECT_FALSE(parse_report_args({"a.json", "-o", "p.html"})->time_limit_s);  // 120 + 60/file
}

}  // namespace
}  // namespace xttcp
