// --defaults and the original's names: which work a run starts from (docs/differences.md).
#include "tools/cli/defaults_profile.hh"

#include <gtest/gtest.h>

#include "tests/unit/cli/cli_test_util.hh"

namespace xttcp::test {
namespace {

// The original's data path: NTTTCP-for-Linux's epoll; a Windows build keeps auto (iocp).
#ifdef _WIN32
constexpr const char* ntttcp_backend = "auto";
#else
constexpr const char* ntttcp_backend = "epoll";
#endif

TestSpec windows_spec(const std::string& line) {
  auto command = parse_windows_dialect(words(line), test_cpu_count);
  EXPECT_TRUE(command.has_value()) << line << ": " << (command ? "" : command.error().message);
  return command ? command->spec : TestSpec{};
}

TEST(DefaultsProfile, XttcpsAreTheFastOnes) {
  const TestSpec spec = parse_ok("-r").spec;
  EXPECT_EQ(spec.defaults, Defaults::xttcp);
  EXPECT_TRUE(spec.io.skip_rx_copy);
  EXPECT_TRUE(spec.io.udp_gso);
  EXPECT_TRUE(spec.io.udp_gro);
  EXPECT_TRUE(spec.io.udp_send_batching);
  EXPECT_EQ(spec.backend, "auto");
}

TEST(DefaultsProfile, NtttcpDoesTheOriginalsWork) {
  const TestSpec spec = parse_ok("-r --defaults ntttcp").spec;
  EXPECT_EQ(spec.defaults, Defaults::ntttcp);
  EXPECT_FALSE(spec.io.skip_rx_copy);
  EXPECT_FALSE(spec.io.udp_gso);
  EXPECT_FALSE(spec.io.udp_gro);
  EXPECT_FALSE(spec.io.udp_send_batching);
  EXPECT_EQ(spec.backend, ntttcp_backend);
}

TEST(DefaultsProfile, OptionsOnTheLineWinInAnyOrder) {
  for (const char* line :
       {"-r -u --defaults=ntttcp --skip-rx-copy --backend io_uring --udp-gro=on",
        "-r -u --skip-rx-copy --backend io_uring --udp-gro=on --defaults ntttcp"}) {
    const TestSpec spec = parse_ok(line).spec;
    EXPECT_TRUE(spec.io.skip_rx_copy) << line;
    EXPECT_EQ(spec.backend, "io_uring") << line;
    EXPECT_TRUE(spec.io.udp_gro) << line;
    EXPECT_FALSE(spec.io.udp_gso) << line;  // not on the line: ntttcp's
  }
}

TEST(DefaultsProfile, WindowsDialectReadsItToo) {
  const TestSpec spec = windows_spec("-r -m 1,*,127.0.0.1 --defaults ntttcp");
  EXPECT_EQ(spec.defaults, Defaults::ntttcp);
  EXPECT_FALSE(spec.io.skip_rx_copy);
  EXPECT_EQ(spec.backend, ntttcp_backend);
  EXPECT_EQ(windows_spec("-r -m 1,*,127.0.0.1 --defaults ntttcp --backend auto").backend, "auto");
}

TEST(DefaultsProfile, BadNameIsOneLine) {
  EXPECT_EQ(parse_error("-r --defaults fast"), "--defaults: 'fast' is not one of xttcp, ntttcp");
}

TEST(DefaultsProfile, OriginalNames) {
  for (const char* name : {"ntttcp", "/usr/bin/ntttcp", "NTttcp.exe", "C:\\tools\\ntttcp.exe",
                           "ntttcps", "ntttcpr.EXE"})
    EXPECT_TRUE(invoked_as_original(name)) << name;
  for (const char* name : {"xttcp", "xttcp.exe", "ntttcp-for-linux", "iperf", "ntttcpx"})
    EXPECT_FALSE(invoked_as_original(name)) << name;
}

TEST(DefaultsProfile, ImpliedByTheNameUnlessTheLineSaysOrASubcommandStarts) {
  std::vector<std::string> args = words("-r -t 5");
  add_implied_defaults("/usr/local/bin/ntttcp", args);
  EXPECT_EQ(args, words("--defaults=ntttcp -r -t 5"));

  args = words("-r --defaults xttcp");
  add_implied_defaults("ntttcp", args);
  EXPECT_EQ(args, words("-r --defaults xttcp"));

  args = words("compare a.json b.json");
  add_implied_defaults("ntttcp", args);
  EXPECT_EQ(args, words("compare a.json b.json"));

  args = words("-r");
  add_implied_defaults("xttcp", args);
  EXPECT_EQ(args, words("-r"));
}

}  // namespace
}  // namespace xttcp::test
