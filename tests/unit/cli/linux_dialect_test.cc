// The NTTTCP-for-Linux grammar: every flag in its attached and separate forms, defaults,
// clamps with their notes, option-order independence and role rules.
#include <gtest/gtest.h>

#include "tests/unit/cli/cli_test_util.hh"

namespace xttcp {
namespace {

using test::has_note;
using test::parse;
using test::parse_error;
using test::parse_ok;

// ---- defaults ---------------------------------------------------------------------------

TEST(LinuxDialectDefaults, EmptyLineIsAReceiverWithNtttcpDefaults) {
  Command command = parse_ok("");
  EXPECT_EQ(command.action, Action::run);
  const TestSpec& spec = command.spec;
  EXPECT_EQ(spec.role, Role::receiver);
  EXPECT_TRUE(has_note(command, "no role given"));
  EXPECT_EQ(spec.layout.address, "");
  EXPECT_EQ(spec.workload.protocol, Protocol::tcp);
  EXPECT_FALSE(spec.layout.ipv6);
  EXPECT_EQ(spec.layout.ports, 16u);
  EXPECT_EQ(spec.layout.threads_per_port, 4u);
  EXPECT_EQ(spec.layout.conns_per_thread, 1u);
  EXPECT_EQ(spec.layout.base_port, 5001);
  EXPECT_EQ(spec.sync_port(), 5000);
  EXPECT_EQ(spec.layout.source_base_port, 0);
  EXPECT_EQ(spec.layout.source_address, "");
  EXPECT_EQ(spec.layout.mapping_text, "16,*,*");
  EXPECT_FALSE(spec.layout.mapping_cpu.has_value());
  EXPECT_EQ(spec.workload.send_buffer, 131072u);
  EXPECT_EQ(spec.workload.recv_buffer, 65536u);
  EXPECT_EQ(spec.workload.rate_limit_bps, 0u);
  EXPECT_EQ(spec.workload.fq_rate_limit_bps, 0u);
  EXPECT_FALSE(spec.io.no_delay);
  EXPECT_EQ(spec.workload.warmup_s, 0u);
  EXPECT_EQ(spec.workload.duration_s, 60u);
  EXPECT_EQ(spec.workload.cooldown_s, 0u);
  EXPECT_FALSE(spec.control.no_sync || spec.control.multi_clients || spec.control.last_client ||
               spec.control.hold || spec.control.daemonize || spec.accepted.use_epoll ||
               spec.output.quiet || spec.output.verbose || spec.output.show_tcp_retrans);
  EXPECT_FALSE(spec.output.log_file || spec.output.xml_file || spec.output.json_file ||
               spec.output.native_json_file);
  EXPECT_EQ(spec.output.show_nic_packets, "");
  EXPECT_EQ(spec.output.show_dev_interrupts, "");
  EXPECT_EQ(spec.backend, "auto");
  EXPECT_TRUE(spec.io.skip_rx_copy);
  EXPECT_DOUBLE_EQ(spec.output.interval_s, 0.5);
  EXPECT_FALSE(spec.layout.worker_threads.has_value());
  EXPECT_EQ(spec.control.connect_timeout_s, 10u);
  EXPECT_EQ(spec.control.wait_timeout_s, 0u);
}

TEST(LinuxDialectDefaults, SenderHasNoNotesAndSixtyFourConnections) {
  Command command = parse_ok("-s 10.0.0.1");
  EXPECT_EQ(command.spec.role, Role::sender);
  EXPECT_EQ(command.spec.layout.address, "10.0.0.1");
  EXPECT_EQ(command.spec.sender_connections(), 64u);
  EXPECT_TRUE(command.notes.empty());
}

// ---- roles and addresses ---------------------------------------------------------------

TEST(LinuxDialectRoles, ReceiverForms) {
  EXPECT_EQ(parse_ok("-r").spec.layout.address, "");
  EXPECT_FALSE(has_note(parse_ok("-r"), "no role"));
  EXPECT_EQ(parse_ok("-r10.0.0.1").spec.layout.address, "10.0.0.1");
  EXPECT_EQ(parse_ok("-r 10.0.0.1").spec.layout.address, "10.0.0.1");
  EXPECT_EQ(parse_ok("-r -V").spec.layout.address, "");  // an option is never taken as the address
  EXPECT_EQ(parse_ok("-r -V").spec.role, Role::receiver);
  EXPECT_EQ(parse_ok("-r fe80::1 -6").spec.layout.address, "fe80::1");
}

TEST(LinuxDialectRoles, SenderForms) {
  EXPECT_EQ(parse_ok("-s10.0.0.1").spec.layout.address, "10.0.0.1");
  EXPECT_EQ(parse_ok("-s 10.0.0.1").spec.layout.address, "10.0.0.1");
  EXPECT_EQ(parse_ok("-V -s host.example -Q").spec.layout.address, "host.example");
  EXPECT_EQ(parse_ok("-s -m 4,*,10.0.0.9").spec.layout.address, "10.0.0.9");
}

TEST(LinuxDialectRoles, RoleAddressWinsOverMappingAddressInAnyOrder) {
  EXPECT_EQ(parse_ok("-s 10.0.0.1 -m 4,*,10.0.0.2").spec.layout.address, "10.0.0.1");
  EXPECT_EQ(parse_ok("-m 4,*,10.0.0.2 -s 10.0.0.1").spec.layout.address, "10.0.0.1");
  EXPECT_EQ(parse_ok("-r 10.0.0.1 -m 4,*,10.0.0.2").spec.layout.address, "10.0.0.1");
  EXPECT_EQ(parse_ok("-r -m 4,*,10.0.0.2").spec.layout.address, "10.0.0.2");
}

TEST(LinuxDialectRoles, LocalRunsOnLoopback) {
  Command command = parse_ok("--local");
  EXPECT_EQ(command.spec.role, Role::local);
  EXPECT_EQ(command.spec.layout.address, "127.0.0.1");
  EXPECT_TRUE(command.notes.empty());
  EXPECT_EQ(parse_ok("--local -6").spec.layout.address, "::1");
  EXPECT_EQ(parse_ok("-6 --local").spec.layout.address, "::1");
  EXPECT_EQ(parse_ok("--local -m 2,*,127.0.0.2").spec.layout.address, "127.0.0.2");
  // Options of both sides are allowed with --local.
  Command both = parse_ok("--local -n 2 -l 3 -f -a 127.0.0.1 -B 1g --wait-timeout 5 -D");
  EXPECT_EQ(both.spec.layout.threads_per_port, 2u);
  EXPECT_EQ(both.spec.layout.conns_per_thread, 3u);
  EXPECT_EQ(both.spec.layout.source_base_port, 25001);
  EXPECT_EQ(both.spec.control.wait_timeout_s, 5u);
}

TEST(LinuxDialectRoles, RoleRulesStateTheRule) {
  EXPECT_EQ(parse_error("-s 10.0.0.1 -M"), "-M is for the receiver only (drop -M or use -r)");
  EXPECT_EQ(parse_error("-L"), "-L is for the sender only (drop -L or use -s ADDR)");
  EXPECT_EQ(parse_error("-r -a 10.0.0.2"),
            "-a is for the sender only (drop -a, or use -s ADDR or --local)");
  EXPECT_EQ(parse_error("--local -H"), "-H cannot be used with --local (drop -H or --local)");
  EXPECT_EQ(parse_error("-r -s 10.0.0.1"),
            "-r and -s cannot be used together (a run is either receiver or sender)");
  EXPECT_EQ(parse_error("-s"), "-s needs the receiver's address (-s ADDR or -m PORTS,CPU,ADDR)");
}

// ---- every flag ------------------------------------------------------------------------

TEST(LinuxDialectFlags, BooleanFlags) {
  EXPECT_TRUE(parse_ok("-D").spec.control.daemonize);
  EXPECT_TRUE(parse_ok("-r -M").spec.control.multi_clients);
  EXPECT_TRUE(parse_ok("-s x -L").spec.control.last_client);
  EXPECT_TRUE(parse_ok("-e").spec.accepted.use_epoll);
  EXPECT_TRUE(parse_ok("-H").spec.control.hold);
  EXPECT_TRUE(parse_ok("-6").spec.layout.ipv6);
  EXPECT_TRUE(parse_ok("-N").spec.control.no_sync);
  EXPECT_TRUE(parse_ok("-Q").spec.output.quiet);
  EXPECT_TRUE(parse_ok("-V").spec.output.verbose);
  EXPECT_TRUE(parse_ok("--show-tcp-retrans").spec.output.show_tcp_retrans);
  EXPECT_TRUE(parse_ok("--no-delay").spec.io.no_delay);
}

TEST(LinuxDialectFlags, BundledShortFlags) {
  Command command = parse_ok("-NQV6");
  EXPECT_TRUE(command.spec.control.no_sync && command.spec.output.quiet &&
              command.spec.output.verbose && command.spec.layout.ipv6);
  // A value-taking option ends the bundle and takes the rest of the word.
  Command with_value = parse_ok("-QP4");
  EXPECT_TRUE(with_value.spec.output.quiet);
  EXPECT_EQ(with_value.spec.layout.ports, 4u);
  EXPECT_EQ(parse_ok("-Vr10.0.0.1").spec.layout.address, "10.0.0.1");
}

TEST(LinuxDialectFlags, CountsAttachedAndSeparate) {
  EXPECT_EQ(parse_ok("-P 4").spec.layout.ports, 4u);
  EXPECT_EQ(parse_ok("-P4").spec.layout.ports, 4u);
  EXPECT_EQ(parse_ok("-s x -n 2").spec.layout.threads_per_port, 2u);
  EXPECT_EQ(parse_ok("-s x -n2").spec.layout.threads_per_port, 2u);
  EXPECT_EQ(parse_ok("-s x -l 3").spec.layout.conns_per_thread, 3u);
  EXPECT_EQ(parse_ok("-s x -l3").spec.layout.conns_per_thread, 3u);
  Command layout = parse_ok("-s x -P 64 -n 16 -l 10");
  EXPECT_EQ(layout.spec.sender_threads(), 1024u);
  EXPECT_EQ(layout.spec.sender_connections(), 10240u);
}

TEST(LinuxDialectFlags, SourceAddress) {
  EXPECT_EQ(parse_ok("-s x -a 10.0.0.11").spec.layout.source_address, "10.0.0.11");
  EXPECT_EQ(parse_ok("-s x -a10.0.0.11").spec.layout.source_address, "10.0.0.11");
}

TEST(LinuxDialectFlags, SourceAddressesSpreadTheConnectionsAndTheFirstServesAsA) {
  const TestSpec spec = parse_ok("-s x --source-addresses 127.0.0.2,127.0.0.3,127.0.0.4").spec;
  EXPECT_EQ(spec.layout.source_address, "127.0.0.2");
  EXPECT_EQ(spec.layout.source_addresses,
            (std::vector<std::string>{"127.0.0.2", "127.0.0.3", "127.0.0.4"}));
  EXPECT_TRUE(parse_ok("-s x").spec.layout.source_addresses.empty());
  EXPECT_FALSE(parse("-s x --source-addresses 127.0.0.2,,127.0.0.3"));
  EXPECT_FALSE(parse("-s x -a 127.0.0.1 --source-addresses 127.0.0.2"));
  EXPECT_FALSE(parse("-r --source-addresses 127.0.0.2"));
}

TEST(LinuxDialectFlags, Protocol) {
  EXPECT_EQ(parse_ok("-u").spec.workload.protocol, Protocol::udp);
  // NTTTCP's default 128 KiB datagram is clamped to the largest UDP payload.
  EXPECT_EQ(parse_ok("-s x -u").spec.workload.send_buffer, 65507u);
  EXPECT_EQ(parse_ok("-s x -u -6").spec.workload.send_buffer, 65527u);
  EXPECT_EQ(parse_ok("-s x -u -b 1470").spec.workload.send_buffer, 1470u);
  const TestSpec spec = parse_ok("-s x -u --udp-payload compat --udp-gso off").spec;
  EXPECT_EQ(spec.workload.udp_payload, UdpPayload::compat);
  EXPECT_FALSE(spec.io.udp_gso);
  EXPECT_FALSE(parse_ok("-r -u --udp-gro=off").spec.io.udp_gro);
  EXPECT_TRUE(parse_ok("-r -u --udp-gro").spec.io.udp_gro);
  EXPECT_EQ(parse_ok("-s x -u").spec.workload.udp_payload, UdpPayload::automatic);
}

TEST(LinuxDialectFlags, BasePort) {
  Command command = parse_ok("-p 6001");
  EXPECT_EQ(command.spec.layout.base_port, 6001);
  EXPECT_EQ(command.spec.sync_port(), 6000);
  EXPECT_EQ(parse_ok("-p6001").spec.layout.base_port, 6001);
  EXPECT_EQ(parse_ok("-p 2").spec.layout.base_port, 2);
  EXPECT_EQ(parse_ok("-p 1 -N").spec.layout.base_port, 1);             // no sync port with -N
  EXPECT_EQ(parse_ok("-p 65520 -P 16").spec.layout.base_port, 65520);  // last port exactly 65535
}

TEST(LinuxDialectFlags, SourcePort) {
  EXPECT_EQ(parse_ok("-s x -f").spec.layout.source_base_port, 25001);
  EXPECT_EQ(parse_ok("-s x -f -V").spec.layout.source_base_port, 25001);
  EXPECT_EQ(parse_ok("-f -s x").spec.layout.source_base_port, 25001);
  EXPECT_EQ(parse_ok("-s x -f 30000").spec.layout.source_base_port, 30000);
  EXPECT_EQ(parse_ok("-s x -f30000").spec.layout.source_base_port, 30000);
  EXPECT_EQ(parse_ok("-s x -f 1025").spec.layout.source_base_port, 1025);
  for (const char* low : {"-s x -f 1024", "-s x -f1", "-s x -f 0"}) {
    Command command = parse_ok(low);
    EXPECT_EQ(command.spec.layout.source_base_port, 25001) << low;
    EXPECT_TRUE(has_note(command, "using 25001")) << low;
  }
}

TEST(LinuxDialectFlags, BufferSetsBothDirections1024Based) {
  for (const char* line : {"-b 64k", "-b64k", "-b 64K", "-b 65536"}) {
    Command command = parse_ok(line);
    EXPECT_EQ(command.spec.workload.send_buffer, 65536u) << line;
    EXPECT_EQ(command.spec.workload.recv_buffer, 65536u) << line;
  }
  EXPECT_EQ(parse_ok("-b 1m").spec.workload.send_buffer, 1048576u);
  EXPECT_EQ(parse_ok("-b 1g").spec.workload.recv_buffer, 1073741824u);
  EXPECT_EQ(parse_ok("-b 1").spec.workload.recv_buffer, 1u);
}

TEST(LinuxDialectFlags, RatesAre1000Based) {
  EXPECT_EQ(parse_ok("-s x -B 10G").spec.workload.rate_limit_bps, 10'000'000'000u);
  EXPECT_EQ(parse_ok("-s x -B500m").spec.workload.rate_limit_bps, 500'000'000u);
  EXPECT_EQ(parse_ok("-s x -B 1000").spec.workload.rate_limit_bps, 1000u);
  EXPECT_EQ(parse_ok("-s x -B 0").spec.workload.rate_limit_bps, 0u);
  EXPECT_TRUE(has_note(parse_ok("-s x -B 10G"), "10.00Gbps"));
  EXPECT_EQ(parse_ok("-s x --fq-rate-limit 10G").spec.workload.fq_rate_limit_bps, 10'000'000'000u);
  EXPECT_EQ(parse_ok("-s x --fq-rate-limit=2g").spec.workload.fq_rate_limit_bps, 2'000'000'000u);
}

TEST(LinuxDialectFlags, FqRateLimitPerSocketFitsThirtyTwoBits) {
  // 64 connections: 100 Gbit/s is 195312500 bytes/s each, well inside 32 bits.
  Command command = parse_ok("-s x --fq-rate-limit 100g");
  EXPECT_TRUE(has_note(command, "195312500 bytes/s"));
  // One connection: 34g / 8 = 4.25e9 bytes/s is just below 2^32, 35g is above.
  EXPECT_TRUE(parse("-s x -P 1 -n 1 --fq-rate-limit 34g").has_value());
  EXPECT_FALSE(parse("-s x -P 1 -n 1 --fq-rate-limit 35g").has_value());
  // The same rate is fine once spread over enough connections, whatever the order.
  EXPECT_TRUE(parse("--fq-rate-limit 35g -s x -P 1 -n 2").has_value());
}

TEST(LinuxDialectFlags, FqRateLimitIsIgnoredWithBandwidthLimit) {
  Command command = parse_ok("-s x --fq-rate-limit 1g -B 2g");
  EXPECT_EQ(command.spec.workload.fq_rate_limit_bps, 0u);
  EXPECT_EQ(command.spec.workload.rate_limit_bps, 2'000'000'000u);
  EXPECT_TRUE(has_note(command, "ignore '--fq-rate-limit' as '-B' is specified"));
  EXPECT_TRUE(
      has_note(command, "Warning! '-B' is specified and the network bandwidth may be limited"));
}

TEST(LinuxDialectFlags, Timeline) {
  Command command = parse_ok("-W 2 -t 30 -C 3");
  EXPECT_EQ(command.spec.workload.warmup_s, 2u);
  EXPECT_EQ(command.spec.workload.duration_s, 30u);
  EXPECT_EQ(command.spec.workload.cooldown_s, 3u);
  EXPECT_EQ(command.spec.cycle_s(), 35u);
  Command attached = parse_ok("-W2 -t30 -C3");
  EXPECT_EQ(attached.spec.cycle_s(), 35u);
  Command continuous = parse_ok("-t 0");
  EXPECT_EQ(continuous.spec.workload.duration_s, 0u);
  EXPECT_TRUE(has_note(continuous, "continuous mode"));
}

TEST(LinuxDialectFlags, ResultFilesBareAttachedAndSeparate) {
  Command bare = parse_ok("-O -x -j");
  EXPECT_EQ(bare.spec.output.log_file, "ntttcp-for-linux-log.log");
  EXPECT_EQ(bare.spec.output.xml_file, "ntttcp-for-linux-log.xml");
  EXPECT_EQ(bare.spec.output.json_file, "ntttcp-for-linux-log.json");
  Command attached = parse_ok("-Oa.log -xb.xml -jc.json");
  EXPECT_EQ(attached.spec.output.log_file, "a.log");
  EXPECT_EQ(attached.spec.output.xml_file, "b.xml");
  EXPECT_EQ(attached.spec.output.json_file, "c.json");
  Command separate = parse_ok("-O a.log -x b.xml -j c.json -V");
  EXPECT_EQ(separate.spec.output.log_file, "a.log");
  EXPECT_EQ(separate.spec.output.xml_file, "b.xml");
  EXPECT_EQ(separate.spec.output.json_file, "c.json");
  EXPECT_TRUE(separate.spec.output.verbose);
  // File names that look like long options stay file names after -O/-x/-j.
  EXPECT_EQ(parse_ok("-Olocal-1").spec.output.log_file, "local-1");
  EXPECT_EQ(parse_ok("-xno-delay.xml").spec.output.xml_file, "no-delay.xml");
  EXPECT_EQ(parse_ok("-xlocal").spec.output.xml_file, "local");
  Command last = parse_ok("-V -x");
  EXPECT_EQ(last.spec.output.xml_file, "ntttcp-for-linux-log.xml");
}

TEST(LinuxDialectFlags, ShowOptions) {
  EXPECT_EQ(parse_ok("--show-nic-packets eth0").spec.output.show_nic_packets, "eth0");
  EXPECT_EQ(parse_ok("--show-nic-packets=eth0").spec.output.show_nic_packets, "eth0");
  auto interrupts = parse(std::vector<std::string>{"--show-dev-interrupts", "Hyper-V PCIe MSI"});
  ASSERT_TRUE(interrupts.has_value());
  EXPECT_EQ(interrupts->spec.output.show_dev_interrupts, "Hyper-V PCIe MSI");
  EXPECT_EQ(parse_ok("--show-dev-interrupts=mlx5").spec.output.show_dev_interrupts, "mlx5");
  // getopt_long's unambiguous prefixes.
  EXPECT_TRUE(parse_ok("--show-tcp").spec.output.show_tcp_retrans);
  EXPECT_TRUE(parse_ok("--no-d").spec.io.no_delay);
}

TEST(LinuxDialectFlags, NativeOptions) {
  EXPECT_EQ(parse_ok("--backend io_uring").spec.backend, "io_uring");
  EXPECT_EQ(parse_ok("--backend=null").spec.backend, "null");
  EXPECT_EQ(parse_ok("--json out.json").spec.output.native_json_file, "out.json");
  EXPECT_EQ(parse_ok("--json=out.json").spec.output.native_json_file, "out.json");
  EXPECT_DOUBLE_EQ(parse_ok("--interval 0.25").spec.output.interval_s, 0.25);
  EXPECT_DOUBLE_EQ(parse_ok("--interval=2").spec.output.interval_s, 2.0);
  EXPECT_EQ(parse_ok("--threads 8").spec.layout.worker_threads, 8u);
  EXPECT_EQ(parse_ok("--threads=1024").spec.layout.worker_threads, 1024u);
  EXPECT_FALSE(parse_ok("-r").spec.layout.pin_workers);
  EXPECT_TRUE(parse_ok("-r --pin").spec.layout.pin_workers);
  EXPECT_EQ(parse_ok("-s x").spec.io.zerocopy, ZeroCopy::off);
  EXPECT_EQ(parse_ok("-s x --zerocopy").spec.io.zerocopy, ZeroCopy::on);
  EXPECT_EQ(parse_ok("-s x --zerocopy=auto").spec.io.zerocopy, ZeroCopy::automatic);
  EXPECT_EQ(parse_ok("-s x --zerocopy off").spec.io.zerocopy, ZeroCopy::off);
  EXPECT_EQ(parse_ok("--local --zerocopy=on").spec.io.zerocopy, ZeroCopy::on);
  EXPECT_TRUE(parse_ok("-r --skip-rx-copy").spec.io.skip_rx_copy);
  EXPECT_TRUE(parse_ok("-r --sqpoll").spec.uring.sqpoll);
  EXPECT_EQ(parse_ok("-s x --congestion bbr").spec.io.congestion, "bbr");
  EXPECT_EQ(parse_ok("-r --congestion=cubic").spec.io.congestion, "cubic");
  EXPECT_EQ(parse_ok("-s x").spec.io.congestion, "");
  EXPECT_EQ(parse_ok("-r").spec.io.busy_poll_us, 0u);
  EXPECT_EQ(parse_ok("-r --busy-poll").spec.io.busy_poll_us, 50u);
  EXPECT_EQ(parse_ok("--local --busy-poll=200").spec.io.busy_poll_us, 200u);
  EXPECT_TRUE(parse_ok("-r").spec.io.receive_mark);
  EXPECT_FALSE(parse_ok("-r --receive-mark=off").spec.io.receive_mark);
  EXPECT_TRUE(parse_ok("--local --receive-mark").spec.io.receive_mark);
  EXPECT_EQ(parse_ok("-r --csv i.csv").spec.output.csv_file, "i.csv");
  EXPECT_FALSE(parse_ok("-r").spec.output.csv_file);
  EXPECT_EQ(parse_ok("-s x --json-stream -").spec.output.json_stream, "-");
  EXPECT_EQ(parse_ok("--local --json-stream=live.ndjson").spec.output.json_stream, "live.ndjson");
  EXPECT_EQ(parse_ok("-s x --connect-timeout 5").spec.control.connect_timeout_s, 5u);
  EXPECT_EQ(parse_ok("-s x --connect-timeout=30").spec.control.connect_timeout_s, 30u);
  EXPECT_EQ(parse_ok("-s x").spec.repeat.count, 1u);
  EXPECT_EQ(parse_ok("-s x --repeat 5").spec.repeat.count, 5u);
  EXPECT_DOUBLE_EQ(parse_ok("-s x --repeat 5 --repeat-pause 0.5").spec.repeat.pause_s, 0.5);
  EXPECT_EQ(parse_ok("-r --wait-timeout 30").spec.control.wait_timeout_s, 30u);
  EXPECT_EQ(parse_ok("--wait-timeout=0").spec.control.wait_timeout_s, 0u);
}

TEST(LinuxDialectFlags, EndOfOptionsMarker) {
  EXPECT_TRUE(parse_ok("-V --").spec.output.verbose);
  // getopt reads no option after "--": the words are ignored, as NTTTCP-for-Linux does.
  Command after = parse_ok("-V -- -t 5");
  EXPECT_EQ(after.spec.workload.duration_s, 60u);
  EXPECT_TRUE(has_note(after, "ignoring '-t', '5': not options or option values"));
}

// ---- what NTTTCP-for-Linux accepts and ignores ------------------------------------------

TEST(LinuxDialectIgnored, LisasUnquotedInterruptStringKeepsTheFirstWord) {
  // lisa/tools/ntttcp.py passes the differentiator unquoted through a shell.
  Command receiver = parse_ok(
      "-r127.0.0.1 -P 64 -t 10 -W 1 -C 1 -b 64k --show-nic-packets lo -e "
      "--show-dev-interrupts Hypervisor callback interrupts");
  EXPECT_EQ(receiver.spec.output.show_dev_interrupts, "Hypervisor");
  EXPECT_EQ(receiver.spec.layout.ports, 64u);
  EXPECT_TRUE(receiver.spec.accepted.use_epoll);
  EXPECT_TRUE(has_note(receiver,
                       "ignoring 'callback', 'interrupts': not options or option values, as "
                       "NTTTCP-for-Linux ignores them (--show-dev-interrupts took only "
                       "'Hypervisor'; quote a value that has spaces)"));
  Command sender = parse_ok(
      "-s127.0.0.1 -P 64 -n 2 -t 10 -W 1 -C 1 -b 64k --show-nic-packets lo "
      "--show-dev-interrupts Hypervisor callback interrupts -a 127.0.0.1");
  EXPECT_EQ(sender.spec.output.show_dev_interrupts, "Hypervisor");
  EXPECT_EQ(sender.spec.layout.source_address, "127.0.0.1");  // options after the stray words count
  EXPECT_EQ(sender.spec.layout.threads_per_port, 2u);
  EXPECT_TRUE(has_note(sender, "ignoring 'callback', 'interrupts'"));
  // Quoted, the whole string is the value, and nothing is ignored.
  Command quoted = test::parse(std::vector<std::string>{"--show-dev-interrupts",
                                                        "Hypervisor callback interrupts"})
                       .value();
  EXPECT_EQ(quoted.spec.output.show_dev_interrupts, "Hypervisor callback interrupts");
  EXPECT_FALSE(has_note(quoted, "ignoring"));
}

TEST(LinuxDialectIgnored, StrayWordsAnywhereAreNamedWithASuggestion) {
  Command command = test::parse(std::vector<std::string>{"local", "-V", "", "-"}).value();
  EXPECT_TRUE(command.spec.output.verbose);
  EXPECT_EQ(command.spec.role, Role::receiver);
  EXPECT_TRUE(
      has_note(command, "ignoring 'local' (did you mean '--local'?), '', '-': not options"));
  EXPECT_FALSE(has_note(command, "took only"));
  EXPECT_TRUE(has_note(parse_ok("-s 10.0.0.1 extra"), "(-s took only '10.0.0.1'"));
}

TEST(LinuxDialectIgnored, SenderOptionsOnAReceiverDoNothingAndSaySo) {
  Command receiver = parse_ok("-r -B 10G --fq-rate-limit 10G -f -n 64 -l 2000 -m 4,*,127.0.0.1");
  const TestSpec& spec = receiver.spec;
  EXPECT_EQ(spec.role, Role::receiver);
  EXPECT_EQ(spec.workload.rate_limit_bps, 0u);
  EXPECT_EQ(spec.workload.fq_rate_limit_bps, 0u);
  EXPECT_EQ(spec.layout.source_base_port, 0);
  EXPECT_EQ(spec.layout.threads_per_port, 1u);  // -m's one thread per port, as if -n were not there
  EXPECT_EQ(spec.layout.conns_per_thread, 1u);
  EXPECT_EQ(spec.layout.ports, 4u);
  for (const char* option : {"-B", "--fq-rate-limit", "-f", "-n", "-l"})
    EXPECT_TRUE(has_note(receiver, std::string("ignore '") + option +
                                       "' on receiver role: it does nothing there (sender only)"))
        << option;
  EXPECT_FALSE(has_note(receiver, "above the maximum"));  // -l 2000 is not even clamped
  EXPECT_FALSE(has_note(receiver, "bandwidth"));
  // No role given is a receiver too.
  EXPECT_TRUE(has_note(parse_ok("-n 2"), "ignore '-n' on receiver role"));
  // The same line on the sender uses them all.
  Command sender = parse_ok("-s 127.0.0.1 -B 10G -f -n 64 -l 2");
  EXPECT_EQ(sender.spec.workload.rate_limit_bps, 10'000'000'000u);
  EXPECT_EQ(sender.spec.layout.threads_per_port, 64u);
  EXPECT_FALSE(has_note(sender, "ignore '"));
}

TEST(LinuxDialectIgnored, ReceiverOptionsOnASenderDoNothingAndSaySo) {
  Command sender = parse_ok("-s 127.0.0.1 -e -H");
  EXPECT_FALSE(sender.spec.accepted.use_epoll);
  EXPECT_FALSE(sender.spec.control.hold);
  EXPECT_TRUE(
      has_note(sender, "ignore '-e' on sender role: it does nothing there (receiver only)"));
  EXPECT_TRUE(has_note(sender, "ignore '-H' on sender role"));
}

TEST(LinuxDialectIgnored, WhatTheOriginalRefusesStaysRefused) {
  EXPECT_NE(parse_error("-r -a 10.0.0.2").find("-a is for the sender only"), std::string::npos);
  EXPECT_NE(parse_error("-s x -M").find("-M is for the receiver only"), std::string::npos);
  EXPECT_NE(parse_error("-r -L").find("-L is for the sender only"), std::string::npos);
  EXPECT_NE(parse_error("-z").find("unknown option '-z'"), std::string::npos);
  EXPECT_NE(parse_error("--frobnicate").find("unknown option"), std::string::npos);
  // xttcp's own options keep their roles: the original has no such options to ignore.
  EXPECT_NE(parse_error("-r --zerocopy").find("--zerocopy is for the sender"), std::string::npos);
  EXPECT_NE(parse_error("--local -e").find("-e cannot be used with --local"), std::string::npos);
}

// ---- clamps ----------------------------------------------------------------------------

TEST(LinuxDialectClamps, ValuesAboveNtttcpMaximaAreClampedWithANote) {
  Command ports = parse_ok("-P 600");
  EXPECT_EQ(ports.spec.layout.ports, 512u);
  EXPECT_TRUE(has_note(ports, "-P: 600 ports is above the maximum of 512; using 512"));
  Command threads = parse_ok("-s x -n 30000");
  EXPECT_EQ(threads.spec.layout.threads_per_port, 25600u);
  EXPECT_TRUE(has_note(threads, "-n:"));
  Command conns = parse_ok("-s x -l 2000");
  EXPECT_EQ(conns.spec.layout.conns_per_thread, 1000u);
  EXPECT_TRUE(has_note(conns, "-l:"));
  Command mapped = parse_ok("-m 600");
  EXPECT_EQ(mapped.spec.layout.ports, 512u);
  EXPECT_TRUE(has_note(mapped, "-m: 600 ports"));
  // At the maxima: no note.
  EXPECT_FALSE(has_note(parse_ok("-s x -P 512 -n 25600 -l 1000"), "maximum"));
}

// ---- -m and option order -----------------------------------------------------------------

TEST(LinuxDialectMapping, SetsPortsOneThreadPerPortCpuAndText) {
  Command command = parse_ok("-s -m 8,1,10.0.0.1");
  EXPECT_EQ(command.spec.layout.ports, 8u);
  EXPECT_EQ(command.spec.layout.threads_per_port, 1u);
  EXPECT_EQ(command.spec.layout.mapping_cpu, 1);
  EXPECT_EQ(command.spec.layout.mapping_text, "8,1,10.0.0.1");
  EXPECT_EQ(command.spec.layout.address, "10.0.0.1");
}

TEST(LinuxDialectMapping, FieldsMayBeMissing) {
  Command ports_only = parse_ok("-m 4");
  EXPECT_EQ(ports_only.spec.layout.ports, 4u);
  EXPECT_FALSE(ports_only.spec.layout.mapping_cpu.has_value());
  EXPECT_EQ(ports_only.spec.layout.address, "");
  EXPECT_EQ(parse_ok("-m 4,*").spec.layout.ports, 4u);
  Command address_only = parse_ok("-s -m ,,10.0.0.1");
  EXPECT_EQ(address_only.spec.layout.ports, 16u);
  EXPECT_EQ(address_only.spec.layout.threads_per_port, 1u);
  EXPECT_EQ(address_only.spec.layout.address, "10.0.0.1");
  EXPECT_EQ(address_only.spec.layout.mapping_text, ",,10.0.0.1");
  EXPECT_EQ(parse_ok("-m 4,,10.0.0.1").spec.layout.mapping_cpu, std::nullopt);
  EXPECT_EQ(parse_ok("-m ,7").spec.layout.mapping_cpu, 7);
}

TEST(LinuxDialectMapping, PortsAndThreadsOptionsWinWhereverTheyAre) {
  for (const char* line : {"-s -m 8,*,10.0.0.1 -P 4 -n 2", "-s -P 4 -n 2 -m 8,*,10.0.0.1",
                           "-P 4 -s -m 8,*,10.0.0.1 -n 2", "-n 2 -m 8,*,10.0.0.1 -s -P 4"}) {
    Command command = parse_ok(line);
    EXPECT_EQ(command.spec.layout.ports, 4u) << line;
    EXPECT_EQ(command.spec.layout.threads_per_port, 2u) << line;
  }
  for (const char* line : {"-s -m 8,*,10.0.0.1 -n 3", "-s -n 3 -m 8,*,10.0.0.1"}) {
    Command command = parse_ok(line);
    EXPECT_EQ(command.spec.layout.ports, 8u) << line;
    EXPECT_EQ(command.spec.layout.threads_per_port, 3u) << line;
  }
  for (const char* line : {"-s -m 8,*,10.0.0.1 -P 2", "-s -P 2 -m 8,*,10.0.0.1"}) {
    Command command = parse_ok(line);
    EXPECT_EQ(command.spec.layout.ports, 2u) << line;
    EXPECT_EQ(command.spec.layout.threads_per_port, 1u) << line;
  }
}

TEST(LinuxDialectOrder, SameLineInAnyOrderGivesTheSameSpec) {
  const char* forward = "-s 10.0.0.1 -P 4 -n 2 -l 3 -b 1m -W 1 -t 5 -C 1 -p 6001 -f 30000 -V";
  const char* backward = "-V -f 30000 -p 6001 -C 1 -t 5 -W 1 -b 1m -l 3 -n 2 -P 4 -s 10.0.0.1";
  TestSpec a = parse_ok(forward).spec;
  TestSpec b = parse_ok(backward).spec;
  EXPECT_EQ(a.layout.address, b.layout.address);
  EXPECT_EQ(a.sender_connections(), b.sender_connections());
  EXPECT_EQ(a.workload.send_buffer, b.workload.send_buffer);
  EXPECT_EQ(a.cycle_s(), b.cycle_s());
  EXPECT_EQ(a.layout.base_port, b.layout.base_port);
  EXPECT_EQ(a.layout.source_base_port, b.layout.source_base_port);
  EXPECT_EQ(a.output.verbose, b.output.verbose);
}

TEST(LinuxDialectOrder, LaterValueOfTheSameOptionWins) {
  EXPECT_EQ(parse_ok("-P 4 -P 8").spec.layout.ports, 8u);
}

// ---- actions ---------------------------------------------------------------------------

TEST(LinuxDialectActions, HelpVersionAndSubcommands) {
  EXPECT_EQ(parse_ok("-h").action, Action::help);
  EXPECT_EQ(parse_ok("--help").action, Action::help);
  EXPECT_EQ(parse_ok("--version").action, Action::version);
  EXPECT_EQ(parse_ok("-s 10.0.0.1 --help").action, Action::help);
  EXPECT_EQ(parse_ok("-P abc -h").action, Action::help);  // help wins over a bad value
  EXPECT_EQ(parse_ok("backends").action, Action::backends);
  EXPECT_EQ(parse_ok("topology").action, Action::topology);
  EXPECT_EQ(parse_error("topology -V"),
            "'topology' takes --nic IF and --json FILE only (got '-V')");
}

TEST(LinuxDialectNative, PlacementAndNic) {
  Command command = parse_ok("-s 10.0.0.1 --placement irq-sibling --nic eth1");
  EXPECT_EQ(command.spec.placement.mode, PlacementMode::irq_sibling);
  EXPECT_EQ(command.spec.placement.nic, "eth1");
  EXPECT_EQ(parse_ok("").spec.placement.mode, PlacementMode::spread);
  EXPECT_EQ(parse_ok("--placement=avoid-irq").spec.placement.mode, PlacementMode::avoid_irq);
  EXPECT_EQ(parse_error("--placement irq_sibling"),
            "--placement: 'irq_sibling' is not one of spread, numa, irq, irq-sibling, avoid-irq");
}

TEST(LinuxDialectActions, TopologyTakesANicAndAJsonFile) {
  Command command = parse_ok("topology --nic eth0 --json=topo.json");
  EXPECT_EQ(command.action, Action::topology);
  EXPECT_EQ(command.topology.nic, "eth0");
  EXPECT_EQ(command.topology.json_file, "topo.json");
  EXPECT_EQ(parse_ok("topology").topology.nic, "");
  EXPECT_EQ(parse_error("topology --nic"), "--nic: needs a value");
  EXPECT_EQ(parse_error("topology --json="), "--json: needs a non-empty value");
  EXPECT_EQ(parse_error("topology --nic a --nic b"), "--nic: given twice");
}

TEST(LinuxDialectActions, MachineCpuCountIsUsedForMappingChecks) {
  // The overload without a CPU count asks the machine: CPU 0 always exists.
  auto command = parse_linux_dialect({"-m", "1,0"});
  ASSERT_TRUE(command.has_value()) << command.error().message;
  EXPECT_EQ(command->spec.layout.mapping_cpu, 0);
  EXPECT_FALSE(parse_linux_dialect({"-m", "1,100000"}).has_value());
}

// ---- help --------------------------------------------------------------------------------

TEST(LinuxDialectHelp, NamesEveryOptionDefaultAndExitCode) {
  const std::string help = linux_dialect_help();
  for (const char* option : {"-r [ADDR]",
                             "-s [ADDR]",
                             "-D ",
                             "-M ",
                             "-L ",
                             "-e ",
                             "-H ",
                             "-m PORTS,CPU,ADDR",
                             "-P N",
                             "-a ADDR",
                             "-n N",
                             "-l N",
                             "-6 ",
                             "-u ",
                             "-p PORT",
                             "-f [PORT]",
                             "-b SIZE",
                             "-B RATE",
                             "-W SEC",
                             "-t SEC",
                             "-C SEC",
                             "-N ",
                             "-O [FILE]",
                             "-x [FILE]",
                             "-j [FILE]",
                             "-Q ",
                             "-V ",
                             "-h, --help",
                             "--show-tcp-retrans",
                             "--show-nic-packets IF",
                             "--show-dev-interrupts STR",
                             "--fq-rate-limit RATE",
                             "--no-delay",
                             "--backend NAME",
                             "--json FILE",
                             "--interval SEC",
                             "--local",
                             "--threads N",
                             "--connect-timeout SEC",
                             "--wait-timeout SEC",
                             "--version"}) {
    EXPECT_NE(help.find(std::string("\n  ") + option), std::string::npos) << option;
  }
  for (const char* text : {"[default: 16, max 512]",
                           "[default: 4, max 25600]",
                           "[default: 1, max 1000]",
                           "[default: 5001]",
                           "[default: 60]",
                           "[default: 0.5]",
                           "[default: 10]",
                           "[default: auto]",
                           "[receiver only]",
                           "[sender or --local]",
                           "Examples:",
                           "Exit codes:",
                           "  0  ",
                           "  1  ",
                           "  2  usage error",
                           "\n  backends ",
                           "\n  topology ",
                           "\n  report ",
                           "\n  compare ",
                           "\n  compare-paths "}) {
    EXPECT_NE(help.find(text), std::string::npos) << text;
  }
}

TEST(LinuxDialectHelp, FitsIn100Columns) {
  const std::string help = linux_dialect_help();
  std::size_t start = 0;
  while (start < help.size()) {
    std::size_t end = help.find('\n', start);
    if (end == std::string::npos) end = help.size();
    EXPECT_LE(end - start, 100u) << help.substr(start, end - start);
    start = end + 1;
  }
}

}  // namespace
}  // namespace xttcp
