// Open files against what a run asks for: raise the soft limit, or refuse naming the numbers.
#include <gtest/gtest.h>

#include "engine/run/descriptor_limit.hh"
#include "tests/unit/engine/specs.hh"

namespace xttcp {
namespace {

TEST(OpenFiles, ASenderNeedsOneDescriptorPerConnectionPlusItsWorkers) {
  const OpenFilesNeed need = open_files_needed(test::sender_spec(100, 100, 1), 2);
  EXPECT_EQ(need.files, 10000 + open_files_least + 2 * open_files_least_per_worker);
  EXPECT_EQ(need.comfortable, 10000 + open_files_margin + 2 * open_files_per_worker);
  EXPECT_FALSE(need.open_ended);
  EXPECT_EQ(need.asked_by, "-P (or -m) x -n x -l: 10000 connections");
  TestSpec windows = test::sender_spec(4, 1, 1);
  windows.dialect = Dialect::windows;
  EXPECT_EQ(open_files_needed(windows, 1).asked_by, "-m: 4 connections");
}

TEST(OpenFiles, TheSoftLimitRisesToWhatTheRunNeedsNeverDown) {
  const OpenFilesNeed need = open_files_needed(test::sender_spec(100, 100, 1), 2);
  EXPECT_EQ(plan_open_files(need, 1024, 1u << 20, 1u << 20).value(), need.comfortable);
  EXPECT_EQ(plan_open_files(need, 50000, 1u << 20, 1u << 20).value(), 50000u);
  EXPECT_EQ(plan_open_files(need, 1024, UINT64_MAX, 1u << 20).value(), need.comfortable);
  // Between the least and the comfortable: as far as the hard limit goes.
  EXPECT_EQ(plan_open_files(need, 1024, need.files, 1u << 20).value(), need.files);
  EXPECT_EQ(plan_open_files(need, 1024, need.files + 10, 1u << 20).value(), need.files + 10);
  // One connection under a low limit runs (a test's receiver or sender at 40 files).
  EXPECT_EQ(
      plan_open_files(open_files_needed(test::sender_spec(1, 1, 1), 2), 40, 40, 1u << 20).value(),
      40u);
}

TEST(OpenFiles, PastTheHardLimitTheRunIsRefusedInOneLineWithTheNumbers) {
  const OpenFilesNeed need = open_files_needed(test::sender_spec(100, 100, 1), 2);
  auto refused = plan_open_files(need, 1024, 4096, 1u << 20);
  ASSERT_FALSE(refused);
  const std::string& line = refused.error().message;
  EXPECT_NE(line.find("-P (or -m) x -n x -l: 10000 connections"), std::string::npos) << line;
  EXPECT_NE(line.find(std::to_string(need.files) + " open files"), std::string::npos) << line;
  EXPECT_NE(line.find("hard limit 4096"), std::string::npos) << line;
  EXPECT_EQ(line.find('\n'), std::string::npos);
}

TEST(OpenFiles, AReceiverTakesTheHardLimitForConnectionsItCannotCount) {
  TestSpec spec;
  spec.role = Role::receiver;
  spec.layout.ports = 16;
  const OpenFilesNeed need = open_files_needed(spec, 2);
  EXPECT_TRUE(need.open_ended);
  EXPECT_EQ(plan_open_files(need, 1024, 524288, 1u << 20).value(), 524288u);
  EXPECT_EQ(plan_open_files(need, 1024, UINT64_MAX, 1u << 20).value(), 1u << 20);  // nr_open
  EXPECT_EQ(plan_open_files(need, 256, 256, 1u << 20).value(), 256u);  // low, but its ports fit
  spec.layout.ports = 1;
  EXPECT_EQ(plan_open_files(open_files_needed(spec, 2), 40, 40, 1u << 20).value(), 40u);
  spec.layout.ports = 512;
  EXPECT_FALSE(plan_open_files(open_files_needed(spec, 2), 256, 256, 1u << 20));
}

}  // namespace
}  // namespace xttcp
