// iperf 2's UDP wire against the datagrams Debian's iperf 2.1.8 sent on loopback (data/udp_*),
// the receive-side accounting of its head, and the UDP console and CSV (goldens under
// tests/golden/report/iperf2-udp-*).
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "engine/iperf2/udp_datagram.hh"
#include "engine/report/iperf2_console.hh"
#include "engine/udp/datagram_accounting.hh"
#include "tests/unit/cli/cli_test_util.hh"
#include "tests/unit/iperf2/iperf2_datagrams.hh"
#include "tests/unit/report/golden.hh"

#ifndef IPERF2_DATA_DIR
#error "IPERF2_DATA_DIR must point at tests/unit/iperf2/data"
#endif

namespace xttcp {
namespace {

using test::expect_golden;
using test::join_lines;

std::vector<unsigned char> capture(const std::string& name) {
  std::ifstream in(std::string(IPERF2_DATA_DIR) + "/" + name);
  EXPECT_TRUE(in.good()) << "missing capture " << name;
  std::string hex, line;
  while (std::getline(in, line))
    if (!line.starts_with('#')) hex += line;
  std::vector<unsigned char> bytes;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    bytes.push_back(static_cast<unsigned char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return bytes;
}

// 'iperf -c 127.0.0.1 -u -p 15313 -t 2 -b 1M -l 200'
iperf2::ClientHeader captured_run_header() {
  return iperf2::udp_client_header(1, 15313, 2, 200, 1024 * 1024);
}

TEST(Iperf2Udp, FirstDatagramsHeadAndHeader) {
  const auto theirs = capture("udp_client_first_b1M_l200_t2_port15313.hex");
  ASSERT_EQ(theirs.size(), 200u);
  iperf2::UdpHead head;
  ASSERT_TRUE(iperf2::decode_head(theirs.data(), theirs.size(), head));
  EXPECT_EQ(head.sequence, 1);  // numbered from 1
  EXPECT_LT(head.tv_usec, 1000000u);
  // After the head: the client header, flags 0x48010098, -l and -b in it.
  std::vector<unsigned char> ours(iperf2::udp_header_size);
  iperf2::encode_udp_header(captured_run_header(), ours.data());
  EXPECT_EQ(std::vector<unsigned char>(theirs.begin() + iperf2::udp_head_size,
                                       theirs.begin() + iperf2::udp_header_size),
            std::vector<unsigned char>(ours.begin() + iperf2::udp_head_size, ours.end()));
  auto header =
      iperf2::decode(theirs.data() + iperf2::udp_head_size, theirs.size() - iperf2::udp_head_size);
  ASSERT_TRUE(header.has_value());
  EXPECT_EQ(header->flags, 0x48010098u);
  EXPECT_EQ(iperf2::declared_length(header->flags), iperf2::udp_header_size);
  EXPECT_EQ(header->buffer_len, 200);
  EXPECT_EQ(header->rate_lower, 1048576u);
  EXPECT_EQ(header->amount, -200);
}

TEST(Iperf2Udp, FinIsTheNegatedNextNumber) {
  const auto theirs = capture("udp_client_fin_b1M_l200_t2_port15313.hex");
  iperf2::UdpHead head;
  ASSERT_TRUE(iperf2::decode_head(theirs.data(), theirs.size(), head));
  EXPECT_EQ(head.sequence, -1314);  // 1313 data datagrams, then the FIN
  std::vector<unsigned char> ours(iperf2::udp_head_size);
  iperf2::encode_head(head, ours.data());
  EXPECT_EQ(ours, std::vector<unsigned char>(theirs.begin(), theirs.begin() + 16));
}

TEST(Iperf2Udp, ServerReportDecodesAndEncodesAs218s) {
  const auto theirs = capture("udp_server_report_1314.hex");
  ASSERT_EQ(theirs.size(), iperf2::server_report_size);
  auto report = iperf2::decode_server_report(theirs.data(), theirs.size());
  ASSERT_TRUE(report.has_value());
  EXPECT_EQ(report->bytes, 262800u);
  EXPECT_EQ(report->stop_sec, 2u);
  EXPECT_EQ(report->stop_usec, 1911u);
  EXPECT_EQ(report->lost, 0u);
  EXPECT_EQ(report->out_of_order, 0u);
  EXPECT_EQ(report->datagrams, 1314u);
  EXPECT_EQ(report->jitter_sec, 0u);
  EXPECT_EQ(report->jitter_usec, 12u);
  // Ours: the same head, flags and counts; the transit extension (its flag unset) left zero.
  std::vector<unsigned char> ours(iperf2::server_report_size);
  iperf2::encode_server_report(*report, ours.data());
  EXPECT_EQ(
      std::vector<unsigned char>(ours.begin(), ours.begin() + iperf2::server_report_min_size),
      std::vector<unsigned char>(theirs.begin(), theirs.begin() + iperf2::server_report_min_size));
  EXPECT_EQ(std::vector<unsigned char>(ours.end() - 12, ours.end()),
            std::vector<unsigned char>(theirs.end() - 12, theirs.end()));
  EXPECT_FALSE(iperf2::decode_server_report(theirs.data(), 40).has_value());
}

TEST(Iperf2Udp, HighSequenceWordsAndCounts) {
  unsigned char head[16];
  iperf2::encode_head({(int64_t{3} << 32) + 5, 7, 9}, head);
  iperf2::UdpHead back;
  ASSERT_TRUE(iperf2::decode_head(head, sizeof head, back));
  EXPECT_EQ(back.sequence, (int64_t{3} << 32) + 5);
  iperf2::ServerReport big;
  big.datagrams = (uint64_t{2} << 32) + 1;
  big.lost = uint64_t{1} << 32;
  unsigned char report[iperf2::server_report_size];
  iperf2::encode_server_report(big, report);
  EXPECT_EQ(iperf2::decode_server_report(report, sizeof report), big);
}

// The receive side: iperf 2's datagrams by source, loss from the numbers, the FIN answered.
using Datagrams = test::Iperf2Datagrams;

TEST(Iperf2Udp, AccountingCountsLossAndAnswersTheFin) {
  Datagrams d;
  d.from(40000);
  for (int64_t n : {1, 2, 4, 3, 6}) d.send(n, static_cast<uint64_t>(n) * 1'000'000);
  EXPECT_EQ(d.flows_started, 1);
  EXPECT_TRUE(d.events().empty());
  d.send(-7, 2'500'001'000);  // 6 data datagrams (5 lost), then the FIN
  EXPECT_EQ(d.flows_ended, 1);
  auto events = d.events();
  ASSERT_EQ(events.size(), 1u);
  const udp::Iperf2StreamEvent& fin = events[0];
  EXPECT_TRUE(fin.ended_now);
  EXPECT_TRUE(fin.answer);
  EXPECT_EQ(fin.how, udp::StreamEnd::fin);
  EXPECT_EQ(fin.flow_id, 40000u);
  EXPECT_EQ(fin.source.port(), 40000u);
  EXPECT_EQ(fin.report.datagrams, 7u);  // data + the FIN, as iperf 2's server counts
  EXPECT_EQ(fin.report.lost, 1u);
  EXPECT_EQ(fin.report.out_of_order, 1u);
  EXPECT_EQ(fin.report.bytes, 6u * 200);
  EXPECT_EQ(fin.report.stop_sec, 2u);  // first datagram at 1 ms, FIN at 2.500001 s
  EXPECT_EQ(fin.report.stop_usec, 499001u);
  // The client repeats its FIN when the report is lost: answered again (a quarter second
  // later), counted no more.
  d.steady_ns += udp::iperf2_report_spacing_ns;
  d.send(-7, 2'750'001'000);
  events = d.events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_FALSE(events[0].ended_now);
  EXPECT_TRUE(events[0].answer);
  EXPECT_EQ(events[0].report.bytes, 6u * 200);
  EXPECT_EQ(d.flows_ended, 1);
}

TEST(Iperf2Udp, SourcesAreFlows) {
  Datagrams d;
  d.from(1);
  d.send(1, 1000);
  // Each stream's first datagram says so once, for the receiver to name it.
  EXPECT_EQ(d.accounting.take_began(), std::optional<uint32_t>{1});
  EXPECT_FALSE(d.accounting.take_began().has_value());
  d.from(2);
  d.send(1, 2000);
  EXPECT_EQ(d.accounting.take_began(), std::optional<uint32_t>{2});
  d.send(2, 3000);
  EXPECT_FALSE(d.accounting.take_began().has_value());
  EXPECT_EQ(d.flows_started, 2);
  EXPECT_EQ(d.accounting.flows(), 2u);
  d.send(-3, 4000);
  const auto events = d.events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].flow_id, 2u);
  EXPECT_EQ(events[0].report.lost, 0u);
}

TEST(Iperf2Udp, TheRegistryKeepsTheNamedFlowsInOrder) {
  udp::UdpFlowRegistry registry;
  registry.describe({0, 7, "127.0.0.1:5001", "127.0.0.1:41418"});
  registry.describe({0, 3, "127.0.0.1:5001", "127.0.0.1:58926"});
  const std::vector<udp::FlowEnds> named = registry.described();
  ASSERT_EQ(named.size(), 2u);
  EXPECT_EQ(named[0].flow_id, 7u);
  EXPECT_EQ(named[1].remote, "127.0.0.1:58926");
}

TestSpec udp_test_line(const std::string& line) {
  auto command = parse_iperf2_dialect(test::words(line));
  EXPECT_TRUE(command.has_value()) << line;
  return command ? command->spec : TestSpec{};
}

// The test the captures come from, as each end's Result holds it.
Iperf2UdpStream reported() {
  Iperf2UdpStream u;
  u.bytes = 262800;
  u.seconds = 2.001911;
  u.datagrams = 1314;
  u.lost = 0;
  u.jitter_ms = 0.012;
  return u;
}

Result udp_client(const std::string& extra) {
  Result r;
  r.spec = udp_test_line("-c 127.0.0.1 -u -p 15313 -t 2 -b 1M -l 200 " + extra);
  r.role = Role::sender;
  r.duration_s = 2.0021;
  r.start_time = "2026-12-02T03:25:27Z";
  ConnectionStats c;
  c.local = "127.0.0.1:57014";
  c.remote = "127.0.0.1:15313";
  c.bytes = 1313 * 200;
  c.iperf2_udp = reported();
  r.connections.push_back(c);
  r.total_bytes = c.bytes;
  r.intervals = {{0, 1.0, 131400, 657}, {1.0, 1.0021, 131200, 656}};
  return r;
}

Result udp_server(const std::string& extra) {
  Result r;
  r.spec = udp_test_line("-s -u -p 15312 " + extra);
  r.role = Role::receiver;
  r.duration_s = 2.0019;
  r.start_time = "2026-12-02T03:25:27Z";
  ConnectionStats c;
  c.local = "127.0.0.1:15312";
  c.remote = "127.0.0.1:35748";
  c.iperf2_udp = reported();
  c.iperf2_udp->lost = 3;
  c.iperf2_udp->out_of_order = 2;
  c.bytes = c.iperf2_udp->bytes;
  r.connections.push_back(c);
  r.total_bytes = c.bytes;
  r.intervals = {{0, 1.0, 131400, 654, 3, 0, 15000}, {1.0, 1.0019, 131400, 657, 0, 0, 12000}};
  return r;
}

TEST(Iperf2UdpConsole, ClientGolden) {
  const Result r = udp_client("");
  expect_golden("iperf2-udp-client.txt",
                join_lines(iperf2_banner_lines(r.spec)) + join_lines(iperf2_report_lines(r)));
}

TEST(Iperf2UdpConsole, ServerWithIntervalsGolden) {
  const Result r = udp_server("-i 1");
  expect_golden("iperf2-udp-server-intervals.txt",
                join_lines(iperf2_banner_lines(r.spec)) + join_lines(iperf2_report_lines(r)));
}

// -e: the client's Write/Err and PPS; the server's Jitter, Lost/Total, latency as iperf 2 prints
// it when it has none (-/-/-/-) and PPS. Layout from Debian's iperf 2.1.8 -u -e on loopback.
TEST(Iperf2UdpConsole, EnhancedGoldens) {
  const Result client = udp_client("-e -i 1");
  expect_golden("iperf2-udp-client-enhanced.txt", join_lines(iperf2_banner_lines(client.spec)) +
                                                      join_lines(iperf2_report_lines(client)));
  const Result server = udp_server("-e -i 1");
  expect_golden("iperf2-udp-server-enhanced.txt", join_lines(iperf2_banner_lines(server.spec)) +
                                                      join_lines(iperf2_report_lines(server)));
}

TEST(Iperf2UdpConsole, EnhancedServerLineAsIperf218Prints) {
  const Result server = udp_server("-e");
  // iperf 2.1.8: "[  1] 0.0000-3.0013 sec  3.58 MBytes  10.0 Mbits/sec   0.001 ms 0/2554 (0%)
  // 0.006/0.001/0.077/0.003 ms 851 pps ..."; xttcp has no latency figures.
  const std::vector<std::string> lines = iperf2_report_lines(server);
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[lines.size() - 2],
            "[  1] 0.0000-2.0019 sec   257 KBytes  1.05 Mbits/sec   0.012 ms 3/1314 (0.23%) "
            "-/-/-/- ms 655 pps");
}

TEST(Iperf2UdpConsole, CsvGoldens) {
  expect_golden("iperf2-udp-client-intervals.csv",
                join_lines(iperf2_report_lines(udp_client("-i 1 -y C"))));
  expect_golden("iperf2-udp-server.csv", join_lines(iperf2_report_lines(udp_server("-y C"))));
}

}  // namespace
}  // namespace xttcp
