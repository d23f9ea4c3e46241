// The iperf3 dialect's grammar: its server's defaults, what each option it keeps sets, and the
// one-line refusals (docs/iperf3.md).
#include <gtest/gtest.h>

#include "tests/unit/cli/cli_test_util.hh"
#include "tools/cli/command.hh"

namespace xttcp {
namespace {

TestSpec iperf3_spec(const std::string& line) {
  auto command = parse_iperf3_dialect(test::words(line));
  EXPECT_TRUE(command.has_value()) << "'" << line << "': " << command.error().message;
  return command ? command->spec : TestSpec{};
}

std::string iperf3_error(const std::string& line) {
  auto command = parse_iperf3_dialect(test::words(line));
  EXPECT_FALSE(command.has_value()) << "'" << line << "' was accepted";
  return command ? "" : command.error().message;
}

TEST(Iperf3Grammar, ServerDefaultsAreIperf3s) {
  const TestSpec spec = iperf3_spec("-s");
  EXPECT_EQ(spec.dialect, Dialect::iperf3);
  EXPECT_EQ(spec.role, Role::receiver);
  EXPECT_TRUE(spec.layout.one_port);
  EXPECT_EQ(spec.layout.base_port, 5201);
  EXPECT_EQ(spec.layout.address, "");
  EXPECT_EQ(spec.output.interval_s, 1.0);
  EXPECT_TRUE(spec.iperf3.intervals);
  EXPECT_FALSE(spec.iperf3.one_off);
  EXPECT_EQ(spec.iperf3.format, 'a');
}

TEST(Iperf3Grammar, WhatTheServerKeepsForItself) {
  const TestSpec spec = iperf3_spec("-s -p 5999 -1 -i 0.5 -f m -B 127.0.0.1 -V --forceflush");
  EXPECT_EQ(spec.layout.base_port, 5999);
  EXPECT_TRUE(spec.iperf3.one_off);
  EXPECT_EQ(spec.output.interval_s, 0.5);
  EXPECT_EQ(spec.iperf3.format, 'm');
  EXPECT_EQ(spec.layout.address, "127.0.0.1");
  EXPECT_TRUE(spec.output.verbose);
  EXPECT_TRUE(spec.iperf3.forceflush);
  EXPECT_FALSE(iperf3_spec("-s -i 0").iperf3.intervals);
  EXPECT_EQ(iperf3_spec("-s1p5999").layout.base_port, 5999);  // bundled, as getopt reads it
  EXPECT_EQ(iperf3_spec("-s -6").layout.address, "::");
  EXPECT_TRUE(iperf3_spec("--server --one-off --port=6000").iperf3.one_off);
}

TEST(Iperf3Grammar, RefusalsNameTheOptionAndWhy) {
  EXPECT_EQ(iperf3_error("-s -p 0"), "-p: '0' is not a port from 1 to 65535");
  EXPECT_EQ(iperf3_error("-s -i 0.05"),
            "-i: '0.05' is not 0 (off) or 0.1 to 60 seconds, as iperf3 takes");
  EXPECT_EQ(iperf3_error("-s -f x"), "-f: 'x' is not one of k m g t (bits) or K M G T (bytes)");
  EXPECT_EQ(iperf3_error("-s -c h"),
            "-s and -c cannot be used together (a run is either server or client)");
  EXPECT_EQ(iperf3_error("-p 5201"), "-s is needed (see 'iperf3 --help')");
  EXPECT_EQ(iperf3_error("-s -4 -6"), "-4 and -6 cannot be used together");
  EXPECT_EQ(iperf3_error("-s --bogus"), "--bogus: not an iperf3 option (see 'iperf3 --help')");
  EXPECT_EQ(iperf3_error("-s extra"), "'extra' is not an option (iperf3 takes no other words)");
  EXPECT_EQ(iperf3_error("-s -P 4"),
            "-P: not served: xttcp's iperf3 client is not built yet (serve iperf3 clients with -s, "
            "or use xttcp's own sender)");
  EXPECT_EQ(iperf3_error("-s --rsa-private-key-path k"),
            "--rsa-private-key-path: not served: iperf3's authentication is not served");
  EXPECT_EQ(iperf3_error("-s -J"),
            "-J: not served: the server's JSON document is not written yet (its console is)");
  EXPECT_EQ(iperf3_error("-s -B eth0%lo"),
            "-B: binding to a device (%dev) is not served; give the address alone");
}

TEST(Iperf3Grammar, HelpAndVersion) {
  auto help = parse_iperf3_dialect(test::words("-h"));
  ASSERT_TRUE(help);
  EXPECT_EQ(help->action, Action::help);
  EXPECT_NE(iperf3_dialect_help().find("-1, --one-off"), std::string::npos);
  EXPECT_EQ(parse_iperf3_dialect(test::words("-v"))->action, Action::version);
}

}  // namespace
}  // namespace xttcp
