// The iperf2 dialect's grammar: iperf 2.1.8's defaults, what each option sets, and the one-line
// refusals (docs/iperf2.md).
#include <gtest/gtest.h>

#include "tests/unit/cli/cli_test_util.hh"

namespace xttcp {
namespace {

using test::words;

Expected<Command> iperf2_parse(const std::string& line) {
  return parse_iperf2_dialect(words(line));
}

TestSpec iperf2_spec(const std::string& line) {
  auto command = iperf2_parse(line);
  EXPECT_TRUE(command.has_value()) << "'" << line << "': " << command.error().message;
  return command ? command->spec : TestSpec{};
}

std::string iperf2_error(const std::string& line) {
  auto command = iperf2_parse(line);
  EXPECT_FALSE(command.has_value()) << "'" << line << "' was accepted";
  return command ? "" : command.error().message;
}

TEST(Iperf2Grammar, ClientDefaultsAreIperf2s) {
  const TestSpec spec = iperf2_spec("-c 10.0.0.2");
  EXPECT_EQ(spec.dialect, Dialect::iperf2);
  EXPECT_EQ(spec.role, Role::sender);
  EXPECT_EQ(spec.layout.address, "10.0.0.2");
  EXPECT_EQ(spec.layout.base_port, 5001);
  EXPECT_EQ(spec.workload.duration_s, 10u);
  EXPECT_EQ(spec.sender_connections(), 1u);
  EXPECT_EQ(spec.workload.send_buffer, 128u * 1024);
  EXPECT_EQ(spec.workload.protocol, Protocol::tcp);
  EXPECT_EQ(spec.workload.rate_limit_bps, 0u);
  EXPECT_TRUE(spec.control.no_sync);
  EXPECT_EQ(spec.iperf2.format, 'a');
  EXPECT_FALSE(spec.iperf2.intervals);
  EXPECT_EQ(spec.io.socket_send_buffer, -1);
}

TEST(Iperf2Grammar, GoogleCloudGuideClientLine) {
  const TestSpec spec = iperf2_spec("-t 30 -c 10.128.0.2 -P 16");
  EXPECT_EQ(spec.workload.duration_s, 30u);
  EXPECT_EQ(spec.layout.ports, 1u);
  EXPECT_EQ(spec.layout.threads_per_port, 16u);
  EXPECT_EQ(spec.sender_connections(), 16u);
  EXPECT_EQ(spec.layout.worker_threads, 16u);  // a thread per stream, as iperf 2
}

TEST(Iperf2Grammar, ThreadsMultiplexStreamsWhenAsked) {
  EXPECT_EQ(iperf2_spec("-c h -P 16 --threads 2").layout.worker_threads, 2u);
  EXPECT_EQ(iperf2_spec("-c h").layout.worker_threads, 1u);
  EXPECT_FALSE(iperf2_spec("-c h -u -P 4").layout.worker_threads.has_value());  // UDP: per CPU
  EXPECT_FALSE(iperf2_spec("-s").layout.worker_threads.has_value());
}

TEST(Iperf2Grammar, ServerDefaults) {
  const TestSpec spec = iperf2_spec("-s");
  EXPECT_EQ(spec.role, Role::receiver);
  EXPECT_EQ(spec.layout.address, "");
  EXPECT_EQ(spec.layout.base_port, 5001);
  EXPECT_EQ(spec.layout.ports, 1u);
  EXPECT_EQ(spec.workload.duration_s, 0u);  // a test lasts as long as its client's streams
  EXPECT_EQ(spec.workload.recv_buffer, 128u * 1024);
}

TEST(Iperf2Grammar, RatePerStream) {
  EXPECT_EQ(iperf2_spec("-c h -b 10m -P 4").workload.rate_limit_bps, 40000000u);  // per stream
  EXPECT_EQ(iperf2_spec("-c h --fq-rate 1g -P 2").workload.fq_rate_limit_bps, 2000000000u);
  EXPECT_EQ(iperf2_spec("-s -V").layout.address, "::");
  EXPECT_TRUE(iperf2_spec("-c ::1 -V").layout.ipv6);
}

TEST(Iperf2Grammar, UdpClientDefaultsAreIperf2s) {
  const TestSpec spec = iperf2_spec("-c 10.0.0.2 -u");
  EXPECT_EQ(spec.workload.protocol, Protocol::udp);
  EXPECT_EQ(spec.workload.udp_payload, UdpPayload::iperf2);
  EXPECT_EQ(spec.workload.send_buffer, 1470u);        // -l for UDP over IPv4
  EXPECT_EQ(spec.workload.rate_limit_bps, 1048576u);  // 1 Mbit/s (2^20) a stream
  EXPECT_FALSE(spec.iperf2.len_given);
  EXPECT_EQ(iperf2_spec("-c ::1 -V -u").workload.send_buffer, 1450u);  // over IPv6
}

TEST(Iperf2Grammar, UdpRateAndLength) {
  const TestSpec spec = iperf2_spec("-c h -u -b 10m -P 2 -l 200");
  EXPECT_EQ(spec.workload.rate_limit_bps, 20000000u);  // -b per stream
  EXPECT_EQ(spec.workload.send_buffer, 200u);
  EXPECT_TRUE(spec.iperf2.len_given);
  const TestSpec server = iperf2_spec("-s -u");
  EXPECT_EQ(server.role, Role::receiver);
  EXPECT_EQ(server.workload.protocol, Protocol::udp);
  EXPECT_EQ(server.workload.udp_payload, UdpPayload::iperf2);
}

TEST(Iperf2Grammar, UdpRefusals) {
  EXPECT_EQ(iperf2_error("-c h -u -l 10"),
            "-l: with -u a datagram holds 16 to 65507 bytes (iperf 2's head is 16)");
  EXPECT_EQ(iperf2_error("-c h -u -C"), "-C: xttcp's UDP always sends iperf 2's header (drop -C)");
  EXPECT_EQ(iperf2_error("-c h -u -N"), "-N: TCP_NODELAY is for TCP only (drop -N or -u)");
  EXPECT_EQ(iperf2_error("-c h -u -Z cubic"),
            "-Z: a congestion control is for TCP only (drop -Z or -u)");
  EXPECT_EQ(iperf2_error("-s -u -b 1m"),
            "-b: xttcp's server reads as fast as it can (give -b to the client)");
}

TEST(Iperf2Grammar, CongestionControlOnEitherEnd) {
  EXPECT_EQ(iperf2_spec("-c h -Z cubic").io.congestion, "cubic");
  EXPECT_EQ(iperf2_spec("-s --tcp-congestion=bbr").io.congestion, "bbr");
  EXPECT_EQ(iperf2_spec("-c h").io.congestion, "");  // the system's
  EXPECT_EQ(iperf2_error("-c h -Z no.such"),
            "-Z: 'no.such' is not an algorithm name (1..15 letters, digits, '_' or '-', e.g. "
            "cubic, bbr)");
  EXPECT_EQ(iperf2_error("-c h -Z abcdefghijklmnop"),
            "-Z: 'abcdefghijklmnop' is not an algorithm name (1..15 letters, digits, '_' or "
            "'-', e.g. cubic, bbr)");
}

TEST(Iperf2Grammar, SuffixesLowerDecimalUpperBinary) {
  EXPECT_EQ(iperf2_spec("-c h -l 8K").workload.send_buffer, 8192u);
  EXPECT_EQ(iperf2_spec("-c h -l 8k").workload.send_buffer, 8000u);
  EXPECT_EQ(iperf2_spec("-c h -b 1G").workload.rate_limit_bps, 1073741824u);
  EXPECT_EQ(iperf2_spec("-c h -w 1M").io.socket_send_buffer, 1048576);
  EXPECT_EQ(iperf2_spec("-c h -w 1M").io.socket_recv_buffer, 1048576);
}

TEST(Iperf2Grammar, GetoptForms) {
  TestSpec spec = iperf2_spec("-c h -P4 -t5 -p 6001 -i 0.5 -fm");
  EXPECT_EQ(spec.layout.threads_per_port, 4u);
  EXPECT_EQ(spec.workload.duration_s, 5u);
  EXPECT_EQ(spec.layout.base_port, 6001);
  EXPECT_DOUBLE_EQ(spec.output.interval_s, 0.5);
  EXPECT_TRUE(spec.iperf2.intervals);
  EXPECT_EQ(spec.iperf2.format, 'm');
  spec = iperf2_spec("-sN");  // bundled flags
  EXPECT_EQ(spec.role, Role::receiver);
  EXPECT_TRUE(spec.io.no_delay);
  spec = iperf2_spec("--client=h --parallel 2 --time=3 --nodelay --bandwidth 2m");
  EXPECT_EQ(spec.layout.address, "h");
  EXPECT_EQ(spec.workload.rate_limit_bps, 4000000u);
  EXPECT_EQ(spec.workload.duration_s, 3u);
}

TEST(Iperf2Grammar, ReportOptions) {
  TestSpec spec = iperf2_spec("-c h -e -y C -x cs --sum-only --hide-ips");
  EXPECT_TRUE(spec.iperf2.enhanced);
  EXPECT_TRUE(spec.iperf2.csv);
  EXPECT_EQ(spec.iperf2.exclude, "CS");
  EXPECT_TRUE(spec.iperf2.sum_only);
  EXPECT_TRUE(spec.iperf2.hide_ips);
  EXPECT_TRUE(iperf2_spec("-s --reportstyle C").iperf2.csv);
  EXPECT_TRUE(iperf2_spec("-s -D").control.daemonize);
  EXPECT_TRUE(iperf2_spec("-c h -N").io.no_delay);
  EXPECT_TRUE(iperf2_spec("-c h -C").iperf2.compatibility);
  EXPECT_EQ(iperf2_spec("-c h -B 10.0.0.1").layout.source_address, "10.0.0.1");
  EXPECT_EQ(iperf2_spec("-s -B 10.0.0.1").layout.address, "10.0.0.1");
  EXPECT_EQ(iperf2_spec("-s -B [fe80::1]").layout.address, "fe80::1");
}

TEST(Iperf2Grammar, XttcpsOwnOptionsWork) {
  const TestSpec spec = iperf2_spec("-c h --backend epoll --json out.json --threads 2 --pin");
  EXPECT_EQ(spec.backend, "epoll");
  EXPECT_EQ(spec.output.native_json_file, "out.json");
  EXPECT_EQ(spec.layout.worker_threads, 2u);
  EXPECT_TRUE(spec.layout.pin_workers);
}

TEST(Iperf2Grammar, HelpAndVersion) {
  EXPECT_EQ(iperf2_parse("-h")->action, Action::help);
  EXPECT_EQ(iperf2_parse("--version")->action, Action::version);
  EXPECT_NE(iperf2_dialect_help().find("-P, --parallel"), std::string::npos);
  EXPECT_NE(iperf2_dialect_help().find("-Z, --tcp-congestion"), std::string::npos);
  EXPECT_EQ(iperf2_dialect_help().find("-m, -Z,"), std::string::npos);  // no longer refused
}

TEST(Iperf2Grammar, BadLinesSayWhichOptionAndWhy) {
  EXPECT_EQ(iperf2_error(""), "-s or -c HOST is needed (see 'iperf --help')");
  EXPECT_EQ(iperf2_error("-s -c h"),
            "-s and -c cannot be used together (a run is either server or client)");
  EXPECT_EQ(iperf2_error("-c h -P 0"), "-P: '0' is below 1");
  EXPECT_EQ(iperf2_error("-c h -P x"), "-P: 'x' is not a whole number from 1 to 25600");
  EXPECT_EQ(
      iperf2_error("-c h -t 1.5"),
      "-t: '1.5' is not a whole number of seconds from 1 (xttcp times tests in whole seconds)");
  EXPECT_EQ(iperf2_error("-c h -f q"), "-f: 'q' is not one of a A b B k K m M g G");
  EXPECT_EQ(iperf2_error("-c h -y J"), "-y: 'J' is not C (comma-separated values)");
  EXPECT_EQ(iperf2_error("-c h -x Q"), "-x: 'Q' is not a report letter (C, D, M, S or V)");
  EXPECT_EQ(iperf2_error("-c h -l 8q"), "-l: '8q' has a suffix other than k, m, g, K, M or G");
  EXPECT_EQ(iperf2_error("-c h -b 100pps"), "-b: packets per second are not served (give bits/s)");
  EXPECT_EQ(iperf2_error("-s -p 5001-5004"),
            "-p: port ranges are not served (xttcp listens on one port)");
  EXPECT_EQ(iperf2_error("-c h -B 10.0.0.1:6000"),
            "-B: a source port (host:port) is not served; give the address alone");
  EXPECT_EQ(iperf2_error("-c h -l 2G"), "-l: '2G' is not a length from 1 byte to 1G");
  EXPECT_EQ(iperf2_error("-c"), "-c needs a value");
  EXPECT_EQ(iperf2_error("-c h -q"), "-q: not an iperf 2 option (see 'iperf --help')");
  EXPECT_EQ(iperf2_error("-c h --frobnicate"),
            "--frobnicate: not an iperf 2 option (see 'iperf --help')");
  EXPECT_EQ(iperf2_error("-c h extra"), "'extra' is not an option (iperf 2 takes no other words)");
  EXPECT_EQ(iperf2_error("-c h --nodelay=yes"), "--nodelay takes no value");
}

TEST(Iperf2Grammar, ServerRefusesClientOptions) {
  EXPECT_EQ(iperf2_error("-s -t 10"),
            "-t: xttcp's iperf2 server serves until Ctrl+C (give -t to the client)");
  EXPECT_EQ(iperf2_error("-s -P 2"),
            "-P: the client says how many streams it sends (give -P to the client)");
  // The enhanced columns are printed at both ends; a TCP server's (Reads=Dist) and its streams'
  // own interval lines ask its data path to count each connection's reads, and only they do.
  EXPECT_TRUE(iperf2_spec("-s -e").iperf2.enhanced);
  EXPECT_TRUE(iperf2_spec("-s -e").io.count_reads);
  EXPECT_TRUE(iperf2_spec("-s -i 1").io.count_reads);
  EXPECT_FALSE(iperf2_spec("-s").io.count_reads);
  EXPECT_FALSE(iperf2_spec("-s -u -e -i 1").io.count_reads);
  EXPECT_FALSE(iperf2_spec("-c h -e -i 1").io.count_reads);
  EXPECT_TRUE(iperf2_spec("-s -u -e").iperf2.enhanced);
  EXPECT_TRUE(iperf2_spec("-c h -u -e").iperf2.enhanced);
  EXPECT_EQ(iperf2_error("-s -b 1m"),
            "-b: xttcp's server reads as fast as it can (give -b to the client)");
}

TEST(Iperf2Grammar, UnservedIperf2OptionsAreRefusedWithTheReason) {
  EXPECT_EQ(
      iperf2_error("-c h -d"),
      "-d: not served: xttcp's iperf2 dialect tests one direction: run xttcp as the client at "
      "the other end instead");
  EXPECT_EQ(
      iperf2_error("-c h -R"),
      "-R: not served: xttcp's iperf2 dialect tests one direction: run xttcp as the client at "
      "the other end instead");
  EXPECT_EQ(iperf2_error("-c h -n 1G"),
            "-n: not served: xttcp's iperf2 tests are timed (-t), not counted in bytes");
  EXPECT_EQ(iperf2_error("-c h -M 1400"), "-M: not served: xttcp does not set TCP_MAXSEG");
  EXPECT_EQ(iperf2_error("-c h --trip-times"),
            "--trip-times: not served: one-way trip times are not measured");
  EXPECT_EQ(iperf2_error("-c h --isochronous=60:20m,5m"),
            "--isochronous: not served: isochronous traffic is not served");
}

TEST(Iperf2Grammar, DialectChosenByNameOrFlag) {
  std::vector<std::string> args = words("-c h");
  auto by_name = choose_dialect("/usr/local/bin/iperf", args);
  ASSERT_TRUE(by_name.has_value());
  EXPECT_EQ(*by_name, CliDialect::iperf2);
  args = words("--dialect iperf2 -s");
  auto by_flag = choose_dialect("xttcp", args);
  ASSERT_TRUE(by_flag.has_value());
  EXPECT_EQ(*by_flag, CliDialect::iperf2);
  EXPECT_EQ(args, words("-s"));
  args = words("-s");
  EXPECT_EQ(*choose_dialect("iperf3", args), CliDialect::iperf3);  // iperf3: its own grammar
}

}  // namespace
}  // namespace xttcp
