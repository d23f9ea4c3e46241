// Which NTttcp-for-Windows command lines the engine runs today (engine/run/windows_dialect_support):
// TCP timed runs, with the token handshake or -ns, with or without -sp, do; every other option is
// refused by name before anything starts.
#include "engine/run/windows_dialect_support.hh"

#include <gtest/gtest.h>

#include "tests/unit/cli/cli_test_util.hh"

namespace xttcp {
namespace {

Status check(const std::string& line) {
  auto command = parse_windows_dialect(test::words(line), test::test_cpu_count);
  EXPECT_TRUE(command.has_value()) << line << ": " << command.error().message;
  if (!command) return fail("parse");
  return check_windows_dialect_supported(command->spec);
}

std::string refusal(const std::string& line) {
  Status status = check(line);
  return status ? "ok" : status.error().message;
}

TEST(WindowsSupport, TokenHandshakeAndSpRun) {
  EXPECT_EQ(refusal("-s -m 2,*,127.0.0.1 -t 2"), "ok");
  EXPECT_EQ(refusal("-r -m 2,*,127.0.0.1 -t 2 -sp"), "ok");
  EXPECT_EQ(refusal("-s -m 2,*,127.0.0.1 -ns -t 2 -sp"), "ok");
}

TEST(WindowsSupport, NoSyncTimedTcpRuns) {
  EXPECT_EQ(refusal("-s -m 2,*,127.0.0.1 -ns -t 2"), "ok");
  EXPECT_EQ(refusal("-r -m 2,*,127.0.0.1 -ns -t 2 -p 6000 -l 32k -ndl -wu 1 -cd 1 -hpt -xml"),
            "ok");
  EXPECT_EQ(refusal("-s -m 1,0,10.0.0.1 1,0,10.0.0.1 -ns -t 5 -nic 10.0.0.2 -v -6"), "ok");
}

TEST(WindowsSupport, LinuxDialectSpecsAlwaysPass) {
  auto command = test::parse("-s 127.0.0.1 -t 5");
  ASSERT_TRUE(command.has_value());
  EXPECT_TRUE(check_windows_dialect_supported(command->spec));
}

TEST(WindowsSupport, RefusesWhatIsNotImplementedByName) {
  EXPECT_TRUE(refusal("-s -m 1,*,h -ns -n 100").starts_with("-n / count mode"));
  EXPECT_TRUE(refusal("-s -m 1,*,h -ns").starts_with("-n / count mode"));  // no -t
  EXPECT_TRUE(refusal("-s -u -m 1,*,h -ns -t 5").starts_with("-u:"));
  EXPECT_TRUE(refusal("-s -m 1,*,h 1,*,g -ns -t 5").starts_with("-m: mappings towards"));
  EXPECT_TRUE(refusal("-s -m 1,0,h 1,1,h -ns -t 5").starts_with("-m: a different CPU"));
  EXPECT_TRUE(refusal("-s -m 1,*,h -ns -t 5 -a 4").starts_with("-a:"));
  EXPECT_TRUE(refusal("-s -m 1,*,h -ns -t 5 -rb 1m").starts_with("-rb:"));
  EXPECT_TRUE(refusal("-s -m 1,*,h -ns -t 5 -sb 0").starts_with("-sb:"));
  EXPECT_EQ(refusal("-s -m 1,*,h -t 5 -sp -6"),
            "-sp with -6: NTttcp for Windows hands out the data ports over IPv4 only (drop one of "
            "them)");
  EXPECT_TRUE(refusal("-s -m 1,*,h -ns -t 5 -sam 1").starts_with("-sam:"));
  EXPECT_TRUE(refusal("-s -m 1,*,h -ns -t 5 -lm").starts_with("-lm:"));
  EXPECT_TRUE(refusal("-r -m 1,*,h -ns -t 5 -d").starts_with("-d:"));
  EXPECT_TRUE(refusal("-r -m 1,*,h -ns -t 5 -wa").starts_with("-wa:"));
  EXPECT_TRUE(refusal("-s -m 1,*,h -ns -t 5 -thr 100").starts_with("-thr:"));
  EXPECT_TRUE(refusal("-s -m 1,*,h -ns -t 5 -na 0").starts_with("-na:"));
}

}  // namespace
}  // namespace xttcp
