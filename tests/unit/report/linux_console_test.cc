#include "engine/report/linux_console.hh"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "engine/report/log.hh"
#include "engine/report/native_json.hh"
#include "engine/run/publish.hh"
#include "tests/unit/report/golden.hh"
#include "tests/unit/report/sample_results.hh"

namespace xttcp {
namespace {

using test::expect_golden;
using test::join_lines;
using test::read_sample;
using test::split_lines;

Result sender_with_all_show_flags() {
  Result r = test::sample_sender_verbose();
  r.spec.output.show_dev_interrupts = "virtio0-input";
  r.interrupts = Interrupts{"virtio0-input", 40021};
  return r;
}

// --bidir: this end's block, the other direction's under its heading, then the other end's for
// each direction, as the console shows them (publish_result).
TEST(LinuxSummary, BidirSenderConsoleGolden) {
  Result sender = test::sample_sender_verbose();
  sender.spec.workload.bidir = true;
  sender.spec.output.verbose = false;
  sender.spec.output.xml_file.reset();  // the console only: no file is written
  sender.spec.output.json_file.reset();
  sender.peer = std::make_shared<const Result>(test::sample_receiver());
  Result back = test::sample_receiver();
  back.spec = sender.spec;
  back.peer = std::make_shared<const Result>(test::sample_sender_verbose());
  sender.other_direction = std::make_shared<const Result>(back);
  FILE* out = std::tmpfile();
  FILE* err = std::tmpfile();
  {
    Log::Options options;
    options.clock = [] { return std::string("13:01:00"); };
    options.out = out;
    options.err = err;
    auto log = Log::open(options);
    ASSERT_TRUE(log) << log.error().message;
    EXPECT_TRUE(publish_result(sender, **log));
  }
  std::rewind(out);
  std::string text;
  char buffer[4096];
  while (std::size_t n = std::fread(buffer, 1, sizeof buffer, out)) text.append(buffer, n);
  std::fclose(out);
  std::fclose(err);
  expect_golden("linux-sender-bidir-console.txt", text);
}

TEST(LinuxSummary, ReceiverGolden) {
  expect_golden("linux-receiver-summary.txt",
                join_lines(linux_summary_lines(test::sample_receiver())));
}

TEST(LinuxSummary, SenderVerboseAllShowFlagsGolden) {
  expect_golden("linux-sender-verbose-all-summary.txt",
                join_lines(linux_summary_lines(sender_with_all_show_flags())));
}

TEST(XttcpExtraLines, ZeroCopyAndNotesGolden) {
  Result r = test::sample_sender_verbose();
  r.spec.io.zerocopy = ZeroCopy::automatic;
  r.zerocopy = ZeroCopyStats{150000, 149990, 149500, true};
  r.notes = {"zero-copy: 99.67 % of sends were copied by the kernel; switched to plain send"};
  expect_golden("xttcp-extra-zerocopy.txt", join_lines(xttcp_extra_lines(r)));
}

TEST(XttcpExtraLines, NothingByDefault) {
  EXPECT_TRUE(xttcp_extra_lines(test::sample_receiver()).empty());
}

TEST(LinuxSummary, ReceiverMatchesSample) {
  auto console = read_sample("linux-receiver-console.txt");
  if (!console) GTEST_SKIP() << "reference samples not available";
  EXPECT_EQ(test::sample_summary(split_lines(*console)),
            linux_summary_lines(test::sample_receiver()));
}

TEST(LinuxSummary, SenderVerboseMatchesSample) {
  auto console = read_sample("linux-sender-verbose-console.txt");
  if (!console) GTEST_SKIP() << "reference samples not available";
  EXPECT_EQ(test::sample_summary(split_lines(*console)),
            linux_summary_lines(test::sample_sender_verbose()));
}

TEST(LinuxSummary, InterruptLinesAndPacketsPerInterrupt) {
  auto lines = linux_summary_lines(sender_with_all_show_flags());
  // (613356 + 613356) / 40021 = 30.65; 40021 / window = interrupts/sec.
  EXPECT_NE(std::find(lines.begin(), lines.end(), "\t pkts/interrupt\t:30.65"), lines.end());
  EXPECT_NE(std::find(lines.begin(), lines.end(), "\t total\t\t:40021"), lines.end());
}

TEST(LinuxSummary, UdpHasNoRetransSegsAndNoRtt) {
  Result r = test::sample_sender_verbose();
  r.spec.workload.protocol = Protocol::udp;
  for (const std::string& line : linux_summary_lines(r)) {
    EXPECT_EQ(line.find("retrans segs"), std::string::npos);
    EXPECT_EQ(line.find("tcpi rtt"), std::string::npos);
  }
}

TEST(LinuxSummary, NothingWithoutAWindow) {
  Result r = test::sample_receiver();
  r.duration_s = 0;
  EXPECT_TRUE(linux_summary_lines(r).empty());
}

TEST(LinuxFlags, SenderMatchesSample) {
  auto console = read_sample("linux-sender-verbose-console.txt");
  if (!console) GTEST_SKIP() << "reference samples not available";
  // The sample: banner, separator, the flags block (ending with its own separator).
  std::vector<std::string> lines = split_lines(*console);
  std::vector<std::string> flags;
  for (std::size_t i = 2; i < lines.size(); ++i) {
    flags.push_back(lines[i]);
    if (lines[i] == linux_separator) break;
  }
  EXPECT_EQ(flags, linux_flags_lines(test::sample_sender_verbose().spec));
}

// -V's per-connection lines, as in the sample ("13:35:52 DBG : New connection: local:38069
// [socket:5] --> 127.0.0.1:25001", and the sync connection's), and the UDP form of udpstream.c.
TEST(LinuxConnectionLine, MatchesSample) {
  EXPECT_EQ(linux_connection_line(SenderSocket::udp_data, 40000, 7, "::1", 5001),
            "Running UDP stream: local:40000 [socket:7] --> ::1:5001");
  auto console = read_sample("linux-sender-verbose-console.txt");
  if (!console) GTEST_SKIP() << "reference samples not available";
  std::vector<std::string> lines;  // the sample's, after "HH:MM:SS DBG : "
  for (const std::string& line : split_lines(*console))
    if (line.find(" DBG : ") == 8 && line.find("connection: local:") != std::string::npos)
      lines.push_back(line.substr(15));
  EXPECT_EQ(lines,
            (std::vector<std::string>{
                linux_connection_line(SenderSocket::sync, 53859, 4, "127.0.0.1", 25000),
                linux_connection_line(SenderSocket::tcp_data, 38069, 5, "127.0.0.1", 25001)}));
}

TEST(LinuxFlags, SenderGolden) {
  TestSpec spec = test::sample_sender_verbose().spec;
  expect_golden("linux-sender-flags.txt", join_lines(linux_flags_lines(spec)));
}

TEST(LinuxFlags, ReceiverVariantGolden) {
  TestSpec spec;  // receiver defaults, plus every receiver-only line
  spec.control.hold = true;
  spec.accepted.use_epoll = true;
  spec.control.multi_clients = true;
  spec.control.no_sync = true;
  spec.layout.ipv6 = true;
  spec.layout.mapping_cpu = 3;
  spec.workload.warmup_s = 2;
  spec.workload.duration_s = 0;
  spec.workload.cooldown_s = 1;
  spec.output.show_dev_interrupts = "mlx5";
  spec.output.log_file = "ntttcp-for-linux-log.log";
  spec.output.quiet = true;
  expect_golden("linux-receiver-flags.txt", join_lines(linux_flags_lines(spec)));
}

// Every sender-side line, and the receiver-only ones left out (-e, -H on a sender).
TEST(LinuxFlags, SenderEveryLineGolden) {
  TestSpec spec;
  spec.role = Role::sender;
  spec.layout.address = "10.0.0.2";
  spec.layout.source_address = "10.0.0.1";
  spec.layout.source_base_port = 40000;
  spec.layout.ports = 2;
  spec.layout.threads_per_port = 3;
  spec.layout.conns_per_thread = 4;
  spec.layout.mapping_cpu = 0;
  spec.workload.protocol = Protocol::udp;
  spec.workload.rate_limit_bps = 1000000;
  spec.workload.fq_rate_limit_bps = 2000000;
  spec.io.no_delay = true;
  spec.control.daemonize = true;
  spec.control.hold = true;
  spec.accepted.use_epoll = true;
  spec.control.last_client = true;
  spec.output.show_tcp_retrans = true;
  spec.output.show_nic_packets = "eth0";
  spec.output.show_dev_interrupts = "virtio0";
  spec.output.log_file = "run.log";
  spec.output.xml_file = "run.xml";
  spec.output.json_file = "run.json";
  spec.output.verbose = true;
  expect_golden("linux-sender-every-flag.txt", join_lines(linux_flags_lines(spec)));
}

// --local shows the sender's view.
TEST(LinuxFlags, LocalRoleGolden) {
  TestSpec spec;
  spec.role = Role::local;
  spec.layout.address = "127.0.0.1";
  spec.layout.ipv6 = false;
  expect_golden("linux-local-flags.txt", join_lines(linux_flags_lines(spec)));
}

TEST(PeerSummary, ShowsThePeersFigures) {
  const Result peer = test::sample_receiver();
  expect_golden("peer-receiver-summary.txt", join_lines(peer_summary_lines(peer)));
  auto lines = peer_summary_lines(peer);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], "#####  Peer (receiver) totals:  #####");
}

}  // namespace
}  // namespace xttcp
