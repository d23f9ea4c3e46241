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
  EXPECT_EQ(iperf3_error("-p 5201"), "-s or -c is needed (see 'iperf3 --help')");
  EXPECT_EQ(iperf3_error("-s -4 -6"), "-4 and -6 cannot be used together");
  EXPECT_EQ(iperf3_error("-s --bogus"), "--bogus: not an iperf3 option (see 'iperf3 --help')");
  EXPECT_EQ(iperf3_error("-s extra"), "'extra' is not an option (iperf3 takes no other words)");
  EXPECT_EQ(iperf3_error("-s -P 4"),
            "-P: a client's option (a server takes every test setting from its client)");
  EXPECT_EQ(iperf3_error("-s --rsa-private-key-path k"),
            "--rsa-private-key-path: not served: iperf3's authentication is not served");
  EXPECT_TRUE(iperf3_spec("-s -J").iperf3.json);
  EXPECT_TRUE(iperf3_spec("-c h -J").iperf3.json);
  EXPECT_EQ(iperf3_error("-s -B eth0%lo"),
            "-B: binding to a device (%dev) is not served; give the address alone");
}

TEST(Iperf3Grammar, TheClientsDefaultsAreIperf3s) {
  const TestSpec spec = iperf3_spec("-c 10.0.0.2");
  EXPECT_EQ(spec.role, Role::sender);
  EXPECT_TRUE(spec.layout.one_port);
  EXPECT_EQ(spec.layout.address, "10.0.0.2");
  EXPECT_EQ(spec.layout.base_port, 5201);
  EXPECT_EQ(spec.layout.ports, 1u);
  EXPECT_EQ(spec.workload.duration_s, 10u);
  EXPECT_EQ(spec.workload.warmup_s, 0u);
  EXPECT_EQ(spec.workload.send_buffer, 131072u);
  EXPECT_FALSE(spec.iperf3.reverse);
  EXPECT_FALSE(spec.layout.ipv6);
  EXPECT_TRUE(iperf3_spec("-c fd00::2").layout.ipv6);  // a literal chooses its family
}

TEST(Iperf3Grammar, WhatTheClientSets) {
  const TestSpec spec = iperf3_spec(
      "-c h -p 5999 -t 3 -P 8 -R -b 2.5G --fq-rate 1g -l 64K -w 4m -O 2 -Z -C bbr -N -T lab "
      "--cport 40000 -B 10.0.0.1 --connect-timeout 2500 -i 0.5 -f g");
  EXPECT_EQ(spec.layout.base_port, 5999);
  EXPECT_EQ(spec.workload.duration_s, 3u);
  EXPECT_EQ(spec.layout.ports, 8u);
  EXPECT_TRUE(spec.iperf3.reverse);
  EXPECT_EQ(spec.iperf3.stream_rate_bps, 2500000000u);  // rates 1000-based
  EXPECT_EQ(spec.iperf3.stream_fq_rate_bps, 1000000000u);
  EXPECT_EQ(spec.workload.send_buffer, 65536u);  // sizes 1024-based
  EXPECT_EQ(spec.io.socket_send_buffer, 4 * 1024 * 1024);
  EXPECT_EQ(spec.workload.warmup_s, 2u);
  EXPECT_EQ(spec.io.zerocopy, ZeroCopy::on);
  EXPECT_EQ(spec.io.congestion, "bbr");
  EXPECT_TRUE(spec.io.no_delay);
  EXPECT_EQ(spec.iperf3.title, "lab");
  EXPECT_EQ(spec.layout.source_base_port, 40000);
  EXPECT_EQ(spec.layout.source_address, "10.0.0.1");
  EXPECT_EQ(spec.control.connect_timeout_s, 3u);  // ms, rounded up to whole seconds
  EXPECT_EQ(spec.output.interval_s, 0.5);
  EXPECT_EQ(spec.iperf3.format, 'g');
  const TestSpec counted = iperf3_spec("-c h -n 1.5G");
  EXPECT_EQ(counted.iperf3.bytes, 1610612736u);
  EXPECT_EQ(counted.workload.duration_s, 86400u);  // -n ends it; the longest 3.12 allows
  EXPECT_EQ(iperf3_spec("-c h -k 10K").iperf3.blocks, 10240u);
}

TEST(Iperf3Grammar, UdpAsThreeTwelvePicksIt) {
  const TestSpec udp = iperf3_spec("-c h -u -P 2");
  EXPECT_EQ(udp.workload.protocol, Protocol::udp);
  EXPECT_EQ(udp.iperf3.stream_rate_bps, 1048576u);  // 1 Mibit/s per stream without -b
  EXPECT_TRUE(udp.iperf3.udp_length_from_mss);      // -l: the control connection's MSS
  EXPECT_FALSE(udp.iperf3.udp_counters_64bit);
  const TestSpec given = iperf3_spec("-c h -u -b 0 -l 1400 --udp-counters-64bit");
  EXPECT_EQ(given.iperf3.stream_rate_bps, 0u);  // -b 0: unlimited
  EXPECT_FALSE(given.iperf3.udp_length_from_mss);
  EXPECT_EQ(given.workload.send_buffer, 1400u);
  EXPECT_TRUE(given.iperf3.udp_counters_64bit);
  EXPECT_EQ(iperf3_spec("-c h").workload.protocol, Protocol::tcp);
}

TEST(Iperf3Grammar, TheClientsRefusals) {
  EXPECT_EQ(iperf3_error("-c h -t 2 -n 1M"), "-t and -n: only one of -t, -n and -k ends a test");
  EXPECT_EQ(iperf3_error("-c h -P 129"),
            "-P: '129' is not a number of streams from 1 to 128 (iperf3's maximum)");
  EXPECT_EQ(iperf3_error("-c h -t 0"), "-t: '0' is not a whole number of seconds from 1 to 86400");
  EXPECT_EQ(iperf3_error("-c h -l 2M"),
            "-l: '2M' is not a block size from 1 byte to 1M (iperf3's TCP maximum)");
  EXPECT_EQ(iperf3_error("-c h -b 10M/5"),
            "-b: a burst (RATE/N) is not served: xttcp paces every send by its own clock");
  EXPECT_EQ(iperf3_error("-c h -b fast"), "-b: 'fast' is not a rate in bits/s (0: unlimited)");
  EXPECT_EQ(iperf3_error("-c h -u -l 15"),
            "-l: a UDP datagram is 16 to 65507 bytes (iperf3's limits), not 15");
  EXPECT_EQ(iperf3_error("-c h --udp-counters-64bit"),
            "--udp-counters-64bit: a UDP test's (add -u)");
  EXPECT_EQ(iperf3_error("-c h -u -Z"),
            "-Z: zero-copy sends are TCP's here (UDP datagrams are copied)");
  EXPECT_EQ(iperf3_error("-s --get-server-output"),
            "--get-server-output: a client's option (a server takes every test setting from "
            "its client)");
  EXPECT_EQ(iperf3_error("-s -u"),
            "-u: a client's option (a server takes every test setting from its client)");
  EXPECT_EQ(iperf3_error("-c h --bidir -R"),
            "-R and --bidir cannot be used together (iperf3: cannot be both reverse and "
            "bidirectional)");
  EXPECT_EQ(iperf3_error("-c h -M 50"),
            "-M: '50' is not a TCP segment size of 88 to 9216 bytes (Linux's least, iperf3's "
            "most)");
  EXPECT_EQ(iperf3_error("-c h --set-mss 9217"),
            "--set-mss: '9217' is not a TCP segment size of 88 to 9216 bytes (Linux's least, "
            "iperf3's most)");
  EXPECT_EQ(iperf3_error("-s -M 1000"),
            "-M: a client's option (a server takes every test setting from its client)");
  EXPECT_EQ(iperf3_error("-s --bidir"),
            "--bidir: a client's option (a server takes every test setting from its client)");
  EXPECT_EQ(iperf3_error("-c h -C abcdefghijklmnop"),
            "-C: 'abcdefghijklmnop' is not a congestion control name of 1 to 15 characters");
  EXPECT_EQ(iperf3_error("-s -R"),
            "-R: a client's option (a server takes every test setting from its client)");
}

TEST(Iperf3Grammar, HelpAndVersion) {
  auto help = parse_iperf3_dialect(test::words("-h"));
  ASSERT_TRUE(help);
  EXPECT_EQ(help->action, Action::help);
  EXPECT_NE(iperf3_dialect_help().find("-1, --one-off"), std::string::npos);
  EXPECT_NE(iperf3_dialect_help().find("-c, --client <host>"), std::string::npos);
  EXPECT_EQ(parse_iperf3_dialect(test::words("-v"))->action, Action::version);
}

}  // namespace
}  // namespace xttcp
