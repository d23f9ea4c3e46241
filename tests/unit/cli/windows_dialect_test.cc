// The NTttcp-for-Windows grammar: every option, case-insensitive names, several mappings, every
// refusal and error line, the hints for NTTTCP-for-Linux habits, and the dialect chooser.
#include <gtest/gtest.h>

#include "base/exit_codes.hh"
#include "tests/unit/cli/cli_test_util.hh"
#include "tools/cli/windows_options.hh"

namespace xttcp {
namespace {

using test::has_note;
using test::words;

Expected<Command> parse_win(const std::string& line) {
  return parse_windows_dialect(words(line), test::test_cpu_count);
}

Command win_ok(const std::string& line) {
  auto command = parse_win(line);
  EXPECT_TRUE(command.has_value()) << "'" << line << "': " << command.error().message;
  return command ? *command : Command{};
}

TestSpec win_spec(const std::string& line) { return win_ok(line).spec; }

std::string win_error(const std::string& line) {
  auto command = parse_win(line);
  EXPECT_FALSE(command.has_value()) << "'" << line << "' was accepted";
  return command ? "" : command.error().message;
}

constexpr const char* sender = "-s -m 4,*,10.0.0.1 -t 10 ";
constexpr const char* receiver = "-r -m 4,*,10.0.0.1 -t 10 ";

// ---- what NTttcp accepts and ignores; what it refuses ---------------------------------------

TEST(WindowsDialectCompat, ReceiveOptionsOnASenderDoNothingAndSaySo) {
  Command command = win_ok(std::string(sender) + "-d -wa");
  EXPECT_TRUE(has_note(command, "-d does nothing on the sender: it checks received data"));
  EXPECT_TRUE(has_note(command, "-wa does nothing on the sender: it applies to receives"));
  EXPECT_FALSE(has_note(win_ok(std::string(receiver) + "-d -wa"), "does nothing"));
}

TEST(WindowsDialectCompat, StrayWordsAreRefusedAsByNtttcp) {
  // NTttcp's ProcessArgs: "Unknown option(s)" for any word it does not know.
  EXPECT_NE(win_error(std::string(sender) + "extra").find("unexpected word 'extra'"),
            std::string::npos);
}

TEST(WindowsDialectCompat, TypographicDashesAreRefusedWithWhatToType) {
  // AWS's guide prints the UDP sender with an en dash.
  EXPECT_EQ(win_error(std::string(sender) + "\u2013u"),
            "'\u2013u' starts with a typographic dash (U+2013 EN DASH), not the ASCII '-': type "
            "'-u'");
  // Not swallowed as one more mapping of -m, nor as -xml's file.
  EXPECT_NE(win_error("-s -m 4,*,10.0.0.1 \u2013u -t 10").find("type '-u'"), std::string::npos);
  EXPECT_NE(win_error(std::string(sender) + "-xml \u2014ns").find("type '-ns'"), std::string::npos);
  EXPECT_NE(win_error(std::string(sender) + "\u2014backend epoll").find("type '--backend'"),
            std::string::npos);
  EXPECT_NE(win_error(std::string(sender) + "-p \u20135001").find("type '-5001'"),
            std::string::npos);
}

// ---- defaults and the shared TestSpec fields -------------------------------------------------

TEST(WindowsDialect, SenderDefaults) {
  const TestSpec spec = win_spec("-s -m 4,*,10.0.0.1 -t 10");
  EXPECT_EQ(spec.dialect, Dialect::windows);
  EXPECT_EQ(spec.role, Role::sender);
  EXPECT_EQ(spec.layout.address, "10.0.0.1");
  EXPECT_EQ(spec.layout.ports, 4u);
  EXPECT_EQ(spec.layout.threads_per_port, 1u);
  EXPECT_EQ(spec.layout.conns_per_thread, 1u);
  EXPECT_EQ(spec.sender_connections(), 4u);
  EXPECT_EQ(spec.layout.base_port, 5001);
  EXPECT_EQ(spec.workload.protocol, Protocol::tcp);
  EXPECT_EQ(spec.workload.send_buffer, 64u * 1024);
  EXPECT_EQ(spec.workload.recv_buffer, 64u * 1024);
  EXPECT_EQ(spec.workload.duration_s, 10u);
  EXPECT_EQ(spec.workload.warmup_s, 0u);
  EXPECT_EQ(spec.workload.cooldown_s, 0u);
  EXPECT_FALSE(spec.control.no_sync);
  EXPECT_FALSE(spec.layout.mapping_cpu.has_value());
  EXPECT_EQ(spec.layout.mapping_text, "4,*,10.0.0.1");
  EXPECT_FALSE(spec.output.xml_file.has_value());
  ASSERT_EQ(spec.layout.mappings.size(), 1u);
  EXPECT_EQ(spec.layout.mappings[0].threads, 4u);
  EXPECT_EQ(spec.layout.mappings[0].host, "10.0.0.1");
  EXPECT_EQ(spec.io.outstanding, 0u);
  EXPECT_EQ(spec.io.socket_recv_buffer, -1);
  EXPECT_EQ(spec.io.socket_send_buffer, -1);
  EXPECT_FALSE(spec.workload.buffer_count.has_value());
  EXPECT_EQ(spec.io.wait_timeout_ms, 600000u);
  EXPECT_EQ(spec.workload.count_timeout_s, 10800u);
  EXPECT_EQ(spec.output.sample_s, 0u);
  EXPECT_FALSE(spec.layout.numa_node.has_value());
}

TEST(WindowsDialect, ReceiverIsTheDefaultRoleWithANote) {
  const Command command = win_ok("-m 1,*,10.0.0.1 -t 5");
  EXPECT_EQ(command.spec.role, Role::receiver);
  EXPECT_TRUE(has_note(command, "no role given"));
  EXPECT_EQ(win_spec("-r -m 1,*,10.0.0.1 -t 5").role, Role::receiver);
}

// The original runs the last of the two; a line with both is refused here.
TEST(WindowsDialect, BothRolesAreRefused) {
  const std::string both = "-r and -s cannot be used together";
  EXPECT_NE(win_error("-s -r -m 1,*,* -t 5").find(both), std::string::npos);
  EXPECT_NE(win_error("-r -s -m 1,*,10.0.0.1 -t 5").find(both), std::string::npos);
  EXPECT_EQ(win_spec("-s -s -m 1,*,10.0.0.1 -t 5").role, Role::sender);  // a repeat is harmless
}

TEST(WindowsDialect, ANegativeNumberIsNotMistakenForAnOption) {
  const std::string error = win_error("-s -m 1,*,10.0.0.1 -a -1");
  EXPECT_NE(error.find("unknown option '-1' (a negative number is no option"), std::string::npos)
      << error;
  EXPECT_EQ(error.find("did you mean"), std::string::npos) << error;
}

TEST(WindowsDialect, NamesAreCaseInsensitive) {
  const TestSpec spec = win_spec(
      "-S -M 2,1,10.0.0.1 -T 5 -XML out.xml -Rb 4K -SB 1M -NDL -V -WU 1 "
      "-Cd 2 -Ns -P 6000");
  EXPECT_EQ(spec.role, Role::sender);
  EXPECT_EQ(spec.layout.ports, 2u);
  EXPECT_EQ(spec.layout.mapping_cpu, 1);
  EXPECT_EQ(spec.workload.duration_s, 5u);
  EXPECT_EQ(spec.output.xml_file, "out.xml");
  EXPECT_EQ(spec.io.socket_recv_buffer, 4096);
  EXPECT_EQ(spec.io.socket_send_buffer, 1 << 20);
  EXPECT_TRUE(spec.io.no_delay);
  EXPECT_TRUE(spec.output.verbose);
  EXPECT_EQ(spec.workload.warmup_s, 1u);
  EXPECT_EQ(spec.workload.cooldown_s, 2u);
  EXPECT_TRUE(spec.control.no_sync);
  EXPECT_EQ(spec.layout.base_port, 6000);
}

TEST(WindowsDialect, SeveralMappings) {
  const TestSpec spec = win_spec("-s -m 4,0,10.0.0.1 2,*,contoso -t 5");
  ASSERT_EQ(spec.layout.mappings.size(), 2u);
  EXPECT_EQ(spec.layout.mappings[0].threads, 4u);
  EXPECT_EQ(spec.layout.mappings[0].cpu, 0);
  EXPECT_EQ(spec.layout.mappings[0].host, "10.0.0.1");
  EXPECT_EQ(spec.layout.mappings[1].threads, 2u);
  EXPECT_FALSE(spec.layout.mappings[1].cpu.has_value());
  EXPECT_EQ(spec.layout.mappings[1].host, "contoso");
  EXPECT_EQ(spec.layout.ports, 6u);
  EXPECT_EQ(spec.layout.mapped_threads(), 6u);
  EXPECT_EQ(spec.layout.address, "10.0.0.1");         // the first mapping's host
  EXPECT_FALSE(spec.layout.mapping_cpu.has_value());  // the mappings disagree
  EXPECT_EQ(spec.layout.mapping_text, "4,0,10.0.0.1 2,*,contoso");
  EXPECT_EQ(win_spec("-s -m 1,3,a 2,3,b -t 5").layout.mapping_cpu, 3);  // they agree
}

TEST(WindowsDialect, ReceiverMayListenOnAnyAddress) {
  const TestSpec spec = win_spec("-r -m 2,*,* -t 5");
  EXPECT_EQ(spec.layout.address, "");
  EXPECT_EQ(spec.layout.mappings[0].host, "");
}

// ---- every accepted option -------------------------------------------------------------------

TEST(WindowsDialect, BufferLength) {
  EXPECT_EQ(win_spec(std::string(sender) + "-l 128k").workload.send_buffer, 128u * 1024);
  EXPECT_EQ(win_spec(std::string(sender) + "-l 2M").workload.recv_buffer, 2u << 20);
  EXPECT_EQ(win_spec(std::string(sender) + "-l 1000").workload.send_buffer, 1000u);
  EXPECT_EQ(win_spec(std::string(sender) + "-u").workload.send_buffer, 128u);  // UDP default
  EXPECT_EQ(win_spec(std::string(sender) + "-l 1400 -u").workload.send_buffer, 1400u);
  EXPECT_EQ(win_spec(std::string(sender) + "-u -l 1400").workload.send_buffer, 1400u);
}

TEST(WindowsDialect, CountModeAndTimeMode) {
  TestSpec spec = win_spec("-s -m 1,*,h -n 100");
  ASSERT_TRUE(spec.workload.buffer_count.has_value());
  EXPECT_EQ(*spec.workload.buffer_count, 100u);
  EXPECT_EQ(spec.workload.count_timeout_s, 10800u);
  EXPECT_EQ(spec.workload.duration_s, 10800u);  // the upper bound of the run

  spec = win_spec("-s -m 1,*,h -n 2k -t 60");  // -t is the longest run, in either order
  EXPECT_EQ(*spec.workload.buffer_count, 2048u);
  EXPECT_EQ(spec.workload.count_timeout_s, 60u);
  EXPECT_EQ(spec.workload.duration_s, 60u);
  EXPECT_EQ(win_spec("-s -m 1,*,h -t 60 -n 5").workload.count_timeout_s, 60u);

  const Command neither = win_ok("-s -m 1,*,h");
  EXPECT_EQ(*neither.spec.workload.buffer_count, windows_default_buffer_count);
  EXPECT_TRUE(has_note(neither, "count mode"));

  const Command warm = win_ok("-s -m 1,*,h -n 10 -wu 5 -cd 5");
  EXPECT_EQ(warm.spec.workload.warmup_s, 0u);
  EXPECT_EQ(warm.spec.workload.cooldown_s, 0u);
  EXPECT_TRUE(has_note(warm, "-wu and -cd are ignored in count mode"));

  EXPECT_FALSE(win_spec(std::string(sender)).workload.buffer_count.has_value());
}

TEST(WindowsDialect, Ports) {
  EXPECT_EQ(win_spec(std::string(sender) + "-p 7000").layout.base_port, 7000);
  EXPECT_TRUE(win_spec(std::string(sender) + "-sp").control.port_assignment);
  EXPECT_TRUE(win_spec(std::string(sender) + "-ns").control.no_sync);
}

TEST(WindowsDialect, TimeoutAndAsync) {
  EXPECT_EQ(win_spec(std::string(sender) + "-to 0").io.wait_timeout_ms, 0u);
  EXPECT_EQ(win_spec(std::string(sender) + "-to 1500").io.wait_timeout_ms, 1500u);

  TestSpec spec = win_spec(std::string(sender) + "-a");
  EXPECT_EQ(spec.io.outstanding, 2u);
  EXPECT_EQ(spec.io.socket_send_buffer, -1);  // a bare -a keeps SO_SNDBUF alone
  spec = win_spec(std::string(sender) + "-a 8");
  EXPECT_EQ(spec.io.outstanding, 8u);
  EXPECT_EQ(spec.io.socket_send_buffer, 0);               // -a n: SO_SNDBUF 0
  spec = win_spec(std::string(sender) + "-a 8 -sb 64k");  // -sb wins in any order
  EXPECT_EQ(spec.io.socket_send_buffer, 65536);
  spec = win_spec(std::string(sender) + "-sb -1 -a 8");
  EXPECT_EQ(spec.io.socket_send_buffer, -1);
  EXPECT_EQ(win_spec(std::string(sender) + "-a -w").io.outstanding, 2u);
  EXPECT_EQ(win_spec(std::string(sender) + "-rb -5").io.socket_recv_buffer, -1);
  EXPECT_EQ(win_spec(std::string(sender) + "-rb 0").io.socket_recv_buffer, 0);
}

TEST(WindowsDialect, UdpOptions) {
  TestSpec spec = win_spec(std::string(sender) + "-u -uso 1400 -uc");
  EXPECT_EQ(spec.workload.protocol, Protocol::udp);
  EXPECT_EQ(spec.io.udp_send_offload, 1400u);
  EXPECT_TRUE(spec.io.udp_unconnected);
  EXPECT_TRUE(win_spec(std::string(receiver) + "-u -uro").io.udp_receive_coalescing);
}

TEST(WindowsDialect, Flags) {
  const TestSpec spec = win_spec(std::string(sender) +
                                 "-a 4 -w -wa -lm -d -v -6 -hpt -nsb -na 1 -thr 500 "
                                 "-nic 10.0.0.2 -sam 5 -wu 3 -cd 4");
  EXPECT_TRUE(spec.accepted.wsa);
  EXPECT_TRUE(spec.io.wait_all);
  EXPECT_TRUE(spec.io.time_each_call);
  EXPECT_TRUE(spec.workload.verify_data);
  EXPECT_TRUE(spec.output.verbose);
  EXPECT_TRUE(spec.layout.ipv6);
  EXPECT_TRUE(spec.output.hide_per_thread);
  EXPECT_TRUE(spec.accepted.no_stdio_buffer);
  EXPECT_EQ(spec.layout.numa_node, 1u);
  EXPECT_EQ(spec.workload.thread_rate_kBps, 500u);
  EXPECT_EQ(spec.layout.source_address, "10.0.0.2");
  EXPECT_EQ(spec.output.sample_s, 5u);
  EXPECT_EQ(spec.workload.warmup_s, 3u);
  EXPECT_EQ(spec.workload.cooldown_s, 4u);
}

TEST(WindowsDialect, VerifyDataReadsTheBytes) {
  EXPECT_FALSE(win_spec(std::string(receiver) + "-d").io.skip_rx_copy);
  EXPECT_FALSE(win_spec(std::string(receiver) + "-d --skip-rx-copy=off").io.skip_rx_copy);
  EXPECT_EQ(win_error(std::string(receiver) + "-d --skip-rx-copy"),
            "-d needs the received bytes: drop --skip-rx-copy or use --skip-rx-copy=off");
}

TEST(WindowsDialect, XmlFile) {
  TestSpec spec = win_spec(std::string(sender) + "-xml");
  EXPECT_EQ(spec.output.xml_file, "xml.txt");
  EXPECT_TRUE(spec.output.xml_append);
  EXPECT_EQ(win_spec(std::string(sender) + "-xml -v").output.xml_file, "xml.txt");
  EXPECT_EQ(win_spec(std::string(sender) + "-xml r.xml -v").output.xml_file, "r.xml");
}

TEST(WindowsDialect, NativeLongOptions) {
  const TestSpec spec =
      win_spec(std::string(sender) + "--backend io_uring --json=out.json --threads 2 --pin");
  EXPECT_EQ(spec.backend, "io_uring");
  EXPECT_EQ(spec.output.native_json_file, "out.json");
  EXPECT_EQ(spec.layout.worker_threads, 2u);
  EXPECT_TRUE(spec.layout.pin_workers);
  EXPECT_EQ(win_error(std::string(sender) + "--skip-rx-copy"),
            "--skip-rx-copy is for the receiver only (drop --skip-rx-copy, or use -r or --local)");
  EXPECT_EQ(win_error(std::string(sender) + "--backend"), "--backend needs a value (NAME)");
  EXPECT_EQ(win_error(std::string(sender) + "--local"),
            "unknown option '--local' (--local is for the Linux dialect (--dialect linux))");
  EXPECT_EQ(win_error(std::string(sender) + "--backnd x"),
            "unknown option '--backnd' (did you mean '--backend'?)");
}

TEST(WindowsDialect, RepeatNeedsAReceiverThatStays) {
  EXPECT_EQ(win_spec(std::string(sender) + "--repeat 1").repeat.count, 1u);
  EXPECT_EQ(win_error(std::string(sender) + "--repeat 3"),
            "--repeat: NTttcp for Windows' receiver runs one test; repeat with the "
            "NTTTCP-for-Linux command line against a receiver with -H");
}

TEST(WindowsDialect, HelpAndVersionWin) {
  for (const char* line : {"-h", "-?", "--help", "-s -m bad -h", "-H"})
    EXPECT_EQ(win_ok(line).action, Action::help) << line;
  EXPECT_EQ(win_ok("--version -x").action, Action::version);
  EXPECT_EQ(win_ok("backends").action, Action::backends);
  EXPECT_EQ(win_error("backends x"), "'backends' takes no arguments (got 'x')");
}

TEST(WindowsDialect, TopologyTakesNicAndJsonAsOnLinux) {
  const Expected<Command> parsed = parse_windows_dialect(
      {"topology", "--nic", "Ethernet 2", "--json=topo.json"}, test::test_cpu_count);
  ASSERT_TRUE(parsed) << parsed.error().message;
  const Command& command = *parsed;
  EXPECT_EQ(command.action, Action::topology);
  EXPECT_EQ(command.topology.nic, "Ethernet 2");
  EXPECT_EQ(command.topology.json_file, "topo.json");
  EXPECT_EQ(win_ok("topology").topology.nic, "");
  EXPECT_EQ(win_error("topology x"), "'topology' takes --nic IF and --json FILE only (got 'x')");
  EXPECT_EQ(win_error("topology --nic"), "--nic: needs a value");
  EXPECT_EQ(win_error("topology --json a --json b"), "--json: given twice");
}

TEST(WindowsDialect, HelpTextListsEveryOption) {
  const std::string help = windows_dialect_help();
  for (const WindowsOptionDef& def : windows_options()) {
    if (def.name == "?") continue;
    EXPECT_NE(help.find("  -" + std::string(def.name) + " "), std::string::npos) << def.name;
  }
  EXPECT_NE(help.find("--backend"), std::string::npos);
  EXPECT_NE(help.find("Exit codes"), std::string::npos);
  std::size_t start = 0;
  while (start < help.size()) {
    const std::size_t end = help.find('\n', start);
    EXPECT_LE(end - start, 100u) << help.substr(start, end - start);
    start = end + 1;
  }
}

// ---- refusals --------------------------------------------------------------------------------

TEST(WindowsDialect, WindowsOnlyOptionsAreRefusedWithTheReason) {
  const std::pair<const char*, const char*> refused[] = {
      {"-hv", "-hv: Hyper-V sockets exist only on Windows hosts; xttcp does not support them"},
      {"-qos 1", "-qos: qWAVE QoS traffic types are a Windows API; xttcp does not support them"},
      {"-x",
       "-x: TransmitPackets is a Winsock extension; xttcp does not support it (the XML "
       "file is -xml)"},
      {"-icp 0",
       "-icp: I/O completion port thread counts are Windows-only; xttcp does not "
       "support them (-a N sets the outstanding buffers)"},
      {"-cfi",
       "-cfi: CPU from idle cycle counters (QueryIdleProcessorCycleTime) is "
       "Windows-only; xttcp reads CPU time from the OS counters"},
      {"-es", "-es: TCP EStats are a Windows API; xttcp does not collect them"},
      {"-brn 10", "-brn: burning CPU after each I/O is not supported by xttcp"},
      {"-jm f.csv", "-jm: jitter measurement (-jm) is not supported by xttcp"},
      {"-ps 10", "-ps: packet spacing is not supported by xttcp (-thr throttles each thread)"},
      {"-rt", "-rt: round-trip mode is not supported by xttcp"},
  };
  for (const auto& [option, message] : refused) {
    EXPECT_EQ(win_error(std::string(sender) + option), message);
  }
  EXPECT_EQ(win_error(std::string(sender) + "-HV"),
            "-hv: Hyper-V sockets exist only on Windows hosts; xttcp does not support them");
}

// ---- errors ----------------------------------------------------------------------------------

TEST(WindowsDialect, TwoResultOutputsNamingOneFileAreRefused) {
  EXPECT_EQ(win_error(std::string(sender) + "-xml r.xml --json r.xml"),
            "-xml and --json name the same file (r.xml): one would overwrite the other; give "
            "each its own");
  EXPECT_EQ(win_error(std::string(sender) + "--csv f --json-stream ./f"),
            "--csv and --json-stream name the same file (./f): one would overwrite the other; "
            "give each its own");
  // --json-stream - is stdout, no file.
  EXPECT_TRUE(parse_win(std::string(sender) + "--json r.json --json-stream -"));
#ifndef _WIN32
  // A device takes each output in turn: nothing there is overwritten.
  EXPECT_TRUE(parse_win(std::string(sender) + "-xml /dev/null --json /dev/null --csv /dev/null"));
#endif
}

TEST(WindowsDialect, MappingErrors) {
  EXPECT_EQ(win_error("-s -t 5"), "-m THREADS,CPU,HOST is required (e.g. -m 4,*,10.0.0.1)");
  EXPECT_EQ(win_error("-s -m -t 5"),
            "-m: needs at least one mapping THREADS,CPU,HOST (e.g. -m 4,*,10.0.0.1)");
  EXPECT_EQ(win_error("-s -m 4,* -t 5"),
            "-m: '4,*' is not THREADS,CPU,HOST (all 3 fields are required, e.g. 4,*,10.0.0.1)");
  EXPECT_EQ(win_error("-s -m 4,,h -t 5"),
            "-m: '4,,h' is not THREADS,CPU,HOST (all 3 fields are required, e.g. 4,*,10.0.0.1)");
  EXPECT_EQ(win_error("-s -m 4,*,h,x -t 5"),
            "-m: '4,*,h,x' is not THREADS,CPU,HOST (all 3 fields are required, e.g. "
            "4,*,10.0.0.1)");
  EXPECT_EQ(win_error("-s -m 0,*,h -t 5"), "-m: threads must be at least 1 in '0,*,h'");
  EXPECT_EQ(win_error("-s -m x,*,h -t 5"), "-m: threads in 'x,*,h': 'x' is not a whole number");
  EXPECT_EQ(win_error("-s -m 1,8,h -t 5"),
            "-m: CPU 8 in '1,8,h' does not exist (this machine has 8 CPUs: 0..7)");
  EXPECT_EQ(win_error("-s -m 1,a,h -t 5"), "-m: CPU 'a' in '1,a,h' is not '*' or a CPU id");
  EXPECT_EQ(win_error("-s -m 1,*,h -m 1,*,h -t 5"),
            "-m: given twice (one -m takes every mapping: -m 4,*,10.0.0.1 2,0,10.0.0.2)");
  EXPECT_EQ(win_error("-s -m 1,*,* -t 5"),
            "-m: the sender needs the receiver's address in every mapping ('*' is for the "
            "receiver)");
}

TEST(WindowsDialect, ThreadAndPortLimits) {
  EXPECT_EQ(win_error("-s -m 999,*,h 1,*,h -t 5"),
            "-m: 1000 threads in total; without -ns fewer than 1000 are allowed (add -ns on "
            "every instance)");
  EXPECT_EQ(win_spec("-s -m 999,*,h -t 5").layout.ports, 999u);
  EXPECT_EQ(win_spec("-s -m 5000,*,h -t 5 -ns").layout.ports, 5000u);
  EXPECT_EQ(win_error("-s -m 100,*,h -t 5 -ns -p 65500"),
            "-p: data ports 65500..65599 pass 65535 (lower -p or use fewer threads)");
  EXPECT_EQ(win_error("-s -m 10,*,h -t 5 -p 64530"),
            "-p: token ports 65530..65539 (data port + 1000) pass 65535 (lower -p, use fewer "
            "threads, or -ns)");
  EXPECT_EQ(win_spec("-s -m 10,*,h -t 5 -p 64526").layout.base_port, 64526);
  EXPECT_EQ(win_error("-s -m 10,*,h -t 5 -ns -sp -p 65526"),
            "-p: data ports 65527..65536 pass 65535 (lower -p or use fewer threads)");
}

TEST(WindowsDialect, NumberErrors) {
  const std::pair<const char*, const char*> cases[] = {
      {"-l 0", "-l: the buffer length must be at least 1 byte"},
      {"-l 64x",
       "-l: '64x' is not a size (a whole number with an optional k or m suffix, e.g. "
       "64k)"},
      {"-l 4096m", "-l: 4096m is above the maximum of 1073741824"},
      {"-l 2048m", "-l: 2048m is above the maximum of 1073741824"},
      {"-l", "-l needs a value (LEN)"},
      {"-n 0", "-n: the number of buffers must be at least 1"},
      {"-n -5",
       "-n: '-5' is not a size (a whole number with an optional k or m suffix, e.g. "
       "64k)"},
      {"-p 0", "-p: port 0 is outside 1..65535"},
      {"-p 70000", "-p: port 70000 is outside 1..65535"},
      {"-p x", "-p: 'x' is not a whole number"},
      {"-to -1", "-to: '-1' is not a whole number"},
      {"-a 0",
       "-a: 0 outstanding buffers; use 1..63 (fewer than 64, the WaitForMultipleObjects "
       "limit)"},
      {"-a 64",
       "-a: 64 outstanding buffers; use 1..63 (fewer than 64, the "
       "WaitForMultipleObjects limit)"},
      {"-rb 1x",
       "-rb: '1x' is not a size (a whole number with an optional k or m suffix, e.g. "
       "64k)"},
      {"-sb -x", "-sb: '-x' is not a size or a negative number"},
      {"-t 0", "-t: 0 is below the minimum of 1"},
      {"-t 1.5", "-t: '1.5' is not a whole number"},
      {"-wu x", "-wu: 'x' is not a whole number"},
      {"-cd 99999999999", "-cd: 99999999999 is above the maximum of 31536000"},
      {"-sam 0", "-sam: 0 is below the minimum of 1"},
      {"-na -1", "-na: '-1' is not a whole number"},
      {"-na 5000", "-na: 5000 is above the maximum of 4095"},
      {"-thr x", "-thr: 'x' is not a whole number"},
      {"-uso 70000", "-uso: 70000 is above the maximum of 65507"},
      {"-nic -x", "-nic: '-x' is not an address"},
      {"-nic", "-nic needs a value (ADDR)"},
  };
  for (const auto& [option, message] : cases)
    EXPECT_EQ(win_error(std::string(sender) + option), message) << option;
}

TEST(WindowsDialect, RulesBetweenOptions) {
  const std::pair<std::string, const char*> cases[] = {
      {std::string(sender) + "-w", "-w: WSASend/WSARecv need asynchronous I/O (add -a)"},
      {std::string(sender) + "-a -wa",
       "-wa: MSG_WAITALL works with synchronous I/O or with -w (add -w or drop -a)"},
      {std::string(receiver) + "-nic 10.0.0.2",
       "-nic is for the sender only (drop -nic or use -s)"},
      {std::string(receiver) + "-thr 10", "-thr is for the sender only (drop -thr or use -s)"},
      {"-s -m 1,*,h -sam 2", "-sam needs a timed run (-t SEC without -n)"},
      {"-s -m 1,*,h -t 10 -n 5 -sam 2", "-sam needs a timed run (-t SEC without -n)"},
      {std::string(sender) + "-uso 1000", "-uso needs -s and -u"},
      {std::string(receiver) + "-u -uso 1000", "-uso needs -s and -u"},
      {std::string(sender) + "-u -uro", "-uro needs -r and -u"},
      {std::string(receiver) + "-uro", "-uro needs -r and -u"},
      {std::string(receiver) + "-u -uro --udp-gro off",
       "-uro: receive coalescing is UDP_GRO, which --udp-gro off turns off (drop one)"},
      {std::string(sender) + "-uc", "-uc: unconnected UDP needs -u"},
      {std::string(sender) + "-u -uc -a",
       "-uc: unconnected UDP uses synchronous I/O only (drop -a)"},
  };
  for (const auto& [line, message] : cases) EXPECT_EQ(win_error(line), message) << line;
  EXPECT_TRUE(win_spec(std::string(sender) + "-wa").io.wait_all);        // sync
  EXPECT_TRUE(win_spec(std::string(sender) + "-a -w -wa").io.wait_all);  // -w
}

TEST(WindowsDialect, Notes) {
  EXPECT_TRUE(has_note(win_ok(std::string(sender) + "-u -ndl"), "-ndl has no effect with -u"));
  EXPECT_TRUE(has_note(win_ok(std::string(sender) + "-sam 20"), "-sam 20 is longer than -t 10"));
}

TEST(WindowsDialect, UnknownOptionsAndStrayWords) {
  EXPECT_EQ(win_error(std::string(sender) + "-xmll"),
            "unknown option '-xmll' (did you mean '-xml'?)");
  EXPECT_EQ(win_error(std::string(sender) + "-HPTT"),
            "unknown option '-HPTT' (did you mean '-hpt'?)");
  EXPECT_EQ(win_error(std::string(sender) + "-zz"), "unknown option '-zz'");
  EXPECT_EQ(win_error(std::string(sender) + "--"), "unexpected word '--' (options start with '-')");
  EXPECT_EQ(win_error(std::string(sender) + "foo"),
            "unexpected word 'foo' (options start with '-')");
  EXPECT_EQ(win_error(std::string(sender) + "-v 3"), "unexpected word '3' (-v takes no value)");
  EXPECT_EQ(win_error("-s 10.0.0.1 -m 1,*,h -t 5"),
            "unexpected word '10.0.0.1' after -s (-s and -r take no address in this dialect; the "
            "address goes in -m THREADS,CPU,HOST)");
}

// ---- NTTTCP-for-Linux habits -----------------------------------------------------------------

TEST(WindowsDialect, LinuxFlagsGetTheWindowsSpelling) {
  EXPECT_EQ(win_error(std::string(sender) + "-b 64k"),
            "unknown option '-b' (the buffer length is -l LEN in this dialect)");
  EXPECT_EQ(win_error(std::string(sender) + "-B 10g"),
            "unknown option '-B' (the throttle is -thr KB/s per sender thread in this dialect)");
  EXPECT_EQ(win_error(std::string(sender) + "-C 2"),
            "unknown option '-C' (the cool-down is -cd SEC in this dialect)");
  EXPECT_EQ(win_error(std::string(sender) + "-W 2"),
            "unexpected word '2' after -W (-W is -w (WSASend/WSARecv) in this dialect; the "
            "warm-up is -wu SEC)");
  EXPECT_EQ(win_error(std::string(sender) + "-j"),
            "unknown option '-j' (this dialect has no NTTTCP JSON file (xttcp's own JSON is "
            "--json FILE))");
  EXPECT_EQ(win_error(std::string(sender) + "-a 10.0.0.2"),
            "-a: '10.0.0.2' is not a whole number (-a is asynchronous I/O in this dialect; the "
            "source address is -nic ADDR)");
  EXPECT_EQ(win_error(std::string(sender) + "-N"),
            "-n needs a value (COUNT) (-N is -n (buffer count) in this dialect; NTTTCP-for-Linux's "
            "-N (no sync) is -ns here)");
  EXPECT_EQ(win_error(std::string(sender) + "-L -V"),
            "-l: '-V' is not a size (a whole number with an optional k or m suffix, e.g. 64k) (-L "
            "is -l (buffer length) in this dialect; there is no last-client mode)");
  EXPECT_EQ(win_error(std::string(sender) + "--no-delay"),
            "unknown option '--no-delay' (TCP_NODELAY is -ndl in this dialect)");
  EXPECT_EQ(win_error(std::string(sender) + "--show-tcp-retrans"),
            "unknown option '--show-tcp-retrans' (retransmits are always shown in this dialect)");
  // Accepted with the Windows meaning, but a note says what changed.
  const Command port = win_ok(std::string(sender) + "-P 4");
  EXPECT_EQ(port.spec.layout.base_port, 4);
  EXPECT_TRUE(has_note(port, "-P is -p (the base port) in this dialect"));
  const Command count = win_ok(std::string(sender) + "-N 4");
  EXPECT_EQ(*count.spec.workload.buffer_count, 4u);
  EXPECT_TRUE(has_note(count, "NTTTCP-for-Linux's -N (no sync) is -ns here"));
  EXPECT_TRUE(has_note(win_ok(std::string(sender) + "-D"), "-D is -d (verify data)"));
  EXPECT_TRUE(win_spec(std::string(sender) + "-V").output.verbose);  // same meaning
}

// ---- the dialect chooser ---------------------------------------------------------------------

struct Choice {
  CliDialect dialect;
  std::vector<std::string> args;
};

Choice choose(std::string_view program, const std::string& line) {
  std::vector<std::string> args = words(line);
  auto dialect = choose_dialect(program, args);
  EXPECT_TRUE(dialect.has_value()) << program << " " << line << ": " << dialect.error().message;
  return {dialect ? *dialect : CliDialect::linux, args};
}

// Names that say nothing take the host's dialect: a Windows user of xttcp.exe is an NTttcp user.
#ifdef _WIN32
constexpr CliDialect host_dialect = CliDialect::windows;
#else
constexpr CliDialect host_dialect = CliDialect::linux;
#endif

TEST(DialectChoice, ByProgramName) {
  EXPECT_EQ(choose("xttcp", "-r").dialect, host_dialect);
  EXPECT_EQ(choose("/usr/bin/xttcp", "-r").dialect, host_dialect);
  EXPECT_EQ(choose("C:\\tools\\xttcp.exe", "-r").dialect, host_dialect);
  EXPECT_EQ(choose("ntttcp.exe", "-r").dialect, CliDialect::windows);
  EXPECT_EQ(choose("C:\\tools\\NTttcp.EXE", "-r").dialect, CliDialect::windows);
  EXPECT_EQ(choose("/opt/NTTTCP.exe", "-r").dialect, CliDialect::windows);
  // NTTTCP-for-Linux installs as "ntttcp": a symlink of that name keeps the Linux grammar.
#ifdef _WIN32
  EXPECT_EQ(choose("ntttcp", "-r").dialect, CliDialect::windows);
#else
  EXPECT_EQ(choose("/usr/local/bin/ntttcp", "-r").dialect, CliDialect::linux);
#endif
  EXPECT_EQ(choose("ntttcpx", "-r").dialect, host_dialect);
}

TEST(DialectChoice, SenderAndReceiverNamesImplyTheRole) {
  Choice s = choose("ntttcps", "-m 1,*,h -t 5");
  EXPECT_EQ(s.dialect, CliDialect::windows);
  EXPECT_EQ(s.args, words("-s -m 1,*,h -t 5"));
  Choice r = choose("/x/NTttcpr.exe", "-m 1,*,h -t 5");
  EXPECT_EQ(r.dialect, CliDialect::windows);
  EXPECT_EQ(r.args, words("-r -m 1,*,h -t 5"));
  // An explicit role later on the line wins, as in the original.
  Choice both = choose("ntttcps.exe", "-r -m 1,*,* -t 5");
  auto command = parse_windows_dialect(both.args, test::test_cpu_count);
  ASSERT_TRUE(command.has_value()) << command.error().message;
  EXPECT_EQ(command->spec.role, Role::receiver);
  // Forced to Linux: nothing is inserted.
  Choice linux = choose("ntttcps", "--dialect linux -r");
  EXPECT_EQ(linux.dialect, CliDialect::linux);
  EXPECT_EQ(linux.args, words("-r"));
}

TEST(DialectChoice, DialectOptionWinsAndIsRemoved) {
  Choice w = choose("xttcp", "-s -m 1,*,h --dialect windows -t 5");
  EXPECT_EQ(w.dialect, CliDialect::windows);
  EXPECT_EQ(w.args, words("-s -m 1,*,h -t 5"));
  Choice eq = choose("xttcp", "--dialect=Windows -r");
  EXPECT_EQ(eq.dialect, CliDialect::windows);
  EXPECT_EQ(eq.args, words("-r"));
  Choice l = choose("ntttcp.exe", "-r --dialect linux");
  EXPECT_EQ(l.dialect, CliDialect::linux);
  EXPECT_EQ(l.args, words("-r"));
  Choice twice = choose("xttcp", "--dialect windows -r --dialect=windows");
  EXPECT_EQ(twice.dialect, CliDialect::windows);
  EXPECT_EQ(twice.args, words("-r"));
}

TEST(DialectChoice, Errors) {
  std::vector<std::string> args = words("-r --dialect");
  auto missing = choose_dialect("xttcp", args);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().message, "--dialect needs a value (linux, windows, iperf2 or iperf3)");
  args = words("--dialect bsd");
  auto bad = choose_dialect("xttcp", args);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().message, "--dialect: 'bsd' is not linux, windows, iperf2 or iperf3");
  args = words("--dialect linux --dialect windows");
  auto conflict = choose_dialect("xttcp", args);
  ASSERT_FALSE(conflict.has_value());
  EXPECT_EQ(conflict.error().message,
            "--dialect is given twice with different values (linux and windows)");
}

TEST(DialectChoice, UsageErrorsExitWithCode2) {
  // The program maps every parse error to exit_code::usage; the value is part of the contract.
  EXPECT_EQ(exit_code::usage, 2);
}

}  // namespace
}  // namespace xttcp
