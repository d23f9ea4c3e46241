// What compare and report read (tools/compare/compare_inputs): a file is refused by its size
// before it is read, by its first absurd figure, named with the file; a single run is a valid
// side; and a comparison prints no "inf" or "nan", whatever tiny or equal figures it gets.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "engine/report/native_json.hh"
#include "tools/compare/compare_inputs.hh"

namespace xttcp {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  return fs::temp_directory_path() / ("xttcp_unit_compare_" + name);
}

Result gbps_run(double gbps) {
  Result r;
  r.role = Role::sender;
  r.backend = "epoll";
  r.duration_s = 10;
  r.total_bytes = static_cast<uint64_t>(gbps * 1e9 / 8 * 10);
  r.cpu.cycles_per_byte = 1.5;
  return r;
}

fs::path write_file(const std::string& name, const std::string& text) {
  const fs::path path = scratch(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

TEST(CompareInputs, AFileTooLargeIsRefusedBeforeItIsRead) {
  const fs::path path = scratch("sparse.json");
  { std::ofstream out(path, std::ios::binary); }
  fs::resize_file(path, 3'000'000'000);
  auto set = read_result_file(path.string());
  fs::remove(path);
  ASSERT_FALSE(set);
  EXPECT_EQ(set.error().message,
            path.string() + ": 3000000000 bytes, over the limit of 268435456 bytes");
}

TEST(CompareInputs, AnAbsurdFigureIsRefusedNamingTheFileAndTheField) {
  Result r = gbps_run(10);
  r.duration_s = 1e-300;
  const fs::path path = write_file("tiny.json", render_native_json(r));
  auto set = read_result_file(path.string());
  fs::remove(path);
  ASSERT_FALSE(set);
  EXPECT_EQ(set.error().message.rfind(path.string() + ": summary.duration_s: 1e-300 s", 0), 0u)
      << set.error().message;
}

TEST(CompareInputs, SingleRunsCompareWithoutATest) {
  const fs::path base = write_file("single-base.json", render_native_json(gbps_run(10)));
  const fs::path changed = write_file("single-new.json", render_native_json(gbps_run(9)));
  auto b = read_result_file(base.string());
  auto c = read_result_file(changed.string());
  fs::remove(base);
  fs::remove(changed);
  ASSERT_TRUE(b) << b.error().message;
  ASSERT_TRUE(c) << c.error().message;
  auto report = compare_sets({"b", &*b}, {"c", &*c}, CompareOptions{}, false);
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_FALSE(report->comparison.tested);
  EXPECT_EQ(report->comparison.overall, Verdict::regression);  // -10 %, threshold 5 %
  EXPECT_NE(render_compare_json(*report).find("\"test\": null"), std::string::npos);
}

TEST(CompareInputs, NoInfinityOrNanIsEverPrinted) {
  // Figures each within the rules whose change or spread overflows a double: a base mean of a
  // denormal number, constant sides (no variance), a tiny mean beside a large spread.
  RunSet base, changed;
  for (double cycles : {1e-310, 1e-310, 1e-310}) {
    base.runs.push_back(gbps_run(10));
    base.runs.back().cpu.cycles_per_byte = cycles;
  }
  for (double cycles : {1.0, 2.0, 1e-320}) {
    changed.runs.push_back(gbps_run(10));
    changed.runs.back().cpu.cycles_per_byte = cycles;
  }
  auto report = compare_sets({"b", &base}, {"c", &changed}, CompareOptions{}, false);
  ASSERT_TRUE(report) << report.error().message;
  const std::string table = render_compare_table(*report);
  for (const char* word : {"inf", "nan", "INF", "NAN"})
    EXPECT_EQ(table.find(word), std::string::npos) << word << " in\n" << table;
  const std::string json = render_compare_json(*report);
  for (const char* word : {"inf", "nan", "Infinity", "NaN"})
    EXPECT_EQ(json.find(word), std::string::npos) << word << " in\n" << json;
}

}  // namespace
}  // namespace xttcp
