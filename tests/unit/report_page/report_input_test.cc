// What `xttcp report` hands its page generator (tools/report/report_input): files read and
// checked as compare checks them, rewritten from the model; single runs compare with no test.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/report/native_json.hh"
#include "tools/report/report_input.hh"

namespace xttcp {
namespace {

namespace fs = std::filesystem;

fs::path write_file(const std::string& name, const Result& r) {
  const fs::path path = fs::temp_directory_path() / ("xttcp_unit_report_" + name);
  std::ofstream(path, std::ios::binary) << render_native_json(r);
  return path;
}

Result run_of(uint64_t bytes) {
  Result r;
  r.role = Role::sender;
  r.backend = "epoll";
  r.duration_s = 10;
  r.total_bytes = bytes;
  return r;
}

TEST(ReportInput, TwoSingleRunsAreAComparisonWithoutATest) {
  const fs::path a = write_file("a.json", run_of(10'000'000'000));
  const fs::path b = write_file("b.json", run_of(10'000'000'000));
  ReportRequest request{{a.string(), b.string()}, "p.html", "same twice", std::nullopt, {}};
  auto input = report_input(request);
  fs::remove(a);
  fs::remove(b);
  ASSERT_TRUE(input) << input.error().message;
  const auto doc = nlohmann::json::parse(*input);
  EXPECT_EQ(doc["title"], "same twice");
  ASSERT_EQ(doc["files"].size(), 2u);
  EXPECT_EQ(doc["files"][0]["runs"][0]["summary"]["total_bytes"], 10'000'000'000u);
  ASSERT_EQ(doc["comparisons"].size(), 1u);
  EXPECT_TRUE(doc["comparisons"][0]["compare"]["test"].is_null());
  EXPECT_EQ(doc["comparisons"][0]["compare"]["verdict"], "same");
}

TEST(ReportInput, OneAbsurdFileIsRefusedNamingItAndTheField) {
  Result absurd = run_of(~uint64_t{0});
  const fs::path a = write_file("absurd.json", absurd);
  ReportRequest request{{a.string()}, "p.html", "t", std::nullopt, {}};
  auto input = report_input(request);
  fs::remove(a);
  ASSERT_FALSE(input);
  EXPECT_EQ(
      input.error().message.rfind(a.string() + ": summary.total_bytes: 1844674407370955161", 0), 0u)
      << input.error().message;
}

TEST(ReportInput, TheGeneratorSeesOnlyWhatWasChecked) {
  // A field the reader does not model (here a string where a figure would be) is not passed on:
  // the generator gets the document rewritten from the checked model.
  const fs::path a = fs::temp_directory_path() / "xttcp_unit_report_extra.json";
  auto doc = result_to_json(run_of(1000));
  doc["summary"]["throughput_bps"] = "$\\foo{}$";
  doc["role"] = "sender";
  std::ofstream(a, std::ios::binary) << doc.dump();
  ReportRequest request{{a.string()}, "p.html", "t", std::nullopt, {}};
  auto input = report_input(request);
  fs::remove(a);
  ASSERT_TRUE(input) << input.error().message;
  EXPECT_EQ(input->find("foo"), std::string::npos);
}

}  // namespace
}  // namespace xttcp
