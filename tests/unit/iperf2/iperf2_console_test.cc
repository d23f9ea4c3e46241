// iperf 2's console from a Result: goldens under tests/golden/report/iperf2-*, and the number
// form checked against lines Debian's iperf 2.1.8 printed on loopback.
#include "engine/report/iperf2_console.hh"

#include <array>

#include <gtest/gtest.h>

#include "tests/unit/cli/cli_test_util.hh"
#include "tests/unit/report/golden.hh"

namespace xttcp {
namespace {

using test::expect_golden;
using test::join_lines;

TestSpec iperf2_line(const std::string& line) {
  auto command = parse_iperf2_dialect(test::words(line));
  EXPECT_TRUE(command.has_value()) << line;
  return command ? command->spec : TestSpec{};
}

// A 30 s client of four streams with 1 s intervals.
Result four_stream_client(const std::string& extra) {
  Result r;
  r.spec = iperf2_line("-c 127.0.0.1 -t 3 -P 4 -i 1 " + extra);
  r.role = Role::sender;
  r.duration_s = 3.0021;
  r.start_time = "2026-12-02T00:15:40Z";
  const uint64_t per_stream[] = {1100000000, 1050000000, 980000000, 1020000000};
  for (int i = 0; i < 4; ++i) {
    ConnectionStats c;
    c.local = "127.0.0.1:" + std::to_string(40000 + i);
    c.remote = "127.0.0.1:5001";
    c.bytes = per_stream[i];
    c.total_retrans = static_cast<uint32_t>(i * 3);
    c.snd_cwnd = 28 + static_cast<uint32_t>(i);
    c.snd_mss = 32741;
    c.rtt_us = 76 + static_cast<uint32_t>(i) * 10;
    c.rttvar_us = 5;
    r.connections.push_back(c);
    ThreadResult thread;
    thread.index = static_cast<uint32_t>(i);
    thread.bytes = c.bytes;
    thread.operations = c.bytes / 131072;
    r.threads.push_back(thread);
    r.total_bytes += c.bytes;
  }
  r.intervals = {
      {0, 1.0002, 1400000000}, {1.0002, 0.9999, 1380000000}, {2.0001, 1.002, 1370000000}};
  return r;
}

TEST(Iperf2Amount, MatchesIperf218sForms) {
  // Lines of Debian's iperf 2.1.8: "884 MBytes  7.41 Gbits/sec", "1.10 GBytes", "16.9 Gbits".
  EXPECT_EQ(iperf2_amount(884.4 * 1024 * 1024, 'A'), " 884 MBytes");
  EXPECT_EQ(iperf2_amount(7.41e9 / 8, 'a'), "7.41 Gbits");
  EXPECT_EQ(iperf2_amount(1.10 * 1024 * 1024 * 1024, 'A'), "1.10 GBytes");
  EXPECT_EQ(iperf2_amount(16.9e9 / 8, 'a'), "16.9 Gbits");
  EXPECT_EQ(iperf2_amount(131072, 'K'), " 128 KBytes");
  EXPECT_EQ(iperf2_amount(125000, 'm'), "1.00 Mbits");
  EXPECT_EQ(iperf2_amount(10, 'b'), "80.0 bits");
}

TEST(Iperf2Console, ClientWithIntervalsGolden) {
  const Result r = four_stream_client("");
  expect_golden("iperf2-client-P4-intervals.txt",
                join_lines(iperf2_banner_lines(r.spec)) + join_lines(iperf2_report_lines(r)));
}

TEST(Iperf2Console, ServerOneStreamGolden) {
  Result r;
  r.spec = iperf2_line("-s");
  r.duration_s = 10.0012;
  ConnectionStats c;
  c.local = "127.0.0.1:5001";
  c.remote = "127.0.0.1:40100";
  c.bytes = 19700000000;
  r.connections.push_back(c);
  r.total_bytes = c.bytes;
  expect_golden("iperf2-server-P1.txt",
                join_lines(iperf2_banner_lines(r.spec)) + join_lines(iperf2_report_lines(r)));
}

TEST(Iperf2Console, SumOnlyFormatAndHiddenAddresses) {
  const Result r = four_stream_client("--sum-only -f M --hide-ips -x S");
  EXPECT_TRUE(iperf2_banner_lines(r.spec).empty());
  expect_golden("iperf2-client-sum-only-MBytes.txt", join_lines(iperf2_report_lines(r)));
}

TEST(Iperf2Console, EnhancedClientGolden) {
  Result r = four_stream_client("-e");
  // The calls of each interval (-e Write/Err), as the run counts them.
  for (std::size_t k = 0; k < r.intervals.size(); ++k) r.intervals[k].operations = 10500 + k;
  expect_golden("iperf2-client-P4-enhanced.txt",
                join_lines(iperf2_banner_lines(r.spec)) + join_lines(iperf2_report_lines(r)));
}

TEST(Iperf2Console, EnhancedIntervalsWithoutCallCountsShowNone) {
  // Intervals read back from a result file carry no calls: no "0/0" column is made up.
  const std::vector<std::string> lines = iperf2_report_lines(four_stream_client("-e"));
  ASSERT_GT(lines.size(), 5u);
  EXPECT_EQ(lines[5], "[SUM] 0.0000-1.0000 sec  1.30 GBytes  11.2 Gbits/sec");
}

TEST(Iperf2Console, IntervalsPrintedLiveAreLeftOut) {
  const Result r = four_stream_client("");
  const std::vector<std::string> all = iperf2_report_lines(r);
  const std::vector<std::string> rest = iperf2_report_lines(r, true);
  EXPECT_EQ(all.size(), rest.size() + 3);  // the three interval lines
  for (const std::string& line : rest)
    EXPECT_EQ(line.find("[SUM] 0.0000-1.0000"), std::string::npos);
  EXPECT_EQ(rest.back(), all.back());
}

// Each interval carries each stream's share (as the live report gets them): each stream's
// lines, then the [SUM]; the streams in slot order although the run listed them by worker.
Result two_stream_client_with_shares(const std::string& extra) {
  Result r;
  r.spec = iperf2_line("-c 127.0.0.1 -t 2 -P 2 -i 1 " + extra);
  r.role = Role::sender;
  r.duration_s = 2.0003;
  r.start_time = "2026-12-02T00:15:40Z";
  for (uint32_t slot : {1u, 0u}) {  // worker order, not slot order
    ConnectionStats c;
    c.local = "127.0.0.1:" + std::to_string(40000 + slot);
    c.remote = "127.0.0.1:5001";
    c.bytes = 1500000000 + slot * 100000000;
    c.snd_cwnd = 30;
    c.snd_mss = 32741;
    c.rtt_us = 100;
    c.stream = slot;
    r.connections.push_back(c);
    r.total_bytes += c.bytes;
  }
  for (uint32_t slot : {0u, 1u}) {
    ThreadResult thread;
    thread.index = slot;
    thread.operations = (1500000000 + slot * 100000000) / 131072;
    r.threads.push_back(thread);
  }
  for (int k = 0; k < 2; ++k) {
    IntervalSample sample{k * 1.0001, 1.0001, 0};
    for (uint64_t slot : {0u, 1u}) {
      StreamInterval s;
      s.key = slot;
      s.bytes = 750000000 + slot * 50000000 + k * 1000;
      s.operations = s.bytes / 131072;
      ConnectionInterval tcp;
      tcp.retransmits = static_cast<uint32_t>(slot * 3 + k);
      tcp.snd_cwnd = 30 + static_cast<uint32_t>(k);
      tcp.snd_mss = 32741;
      tcp.rtt_us = 90 + static_cast<uint32_t>(slot * 10);
      tcp.rttvar_us = 20;
      s.tcp = tcp;
      sample.bytes += s.bytes;
      sample.operations += s.operations;
      sample.per_stream.push_back(s);
    }
    r.intervals.push_back(sample);
  }
  return r;
}

TEST(Iperf2Console, EachStreamsIntervalLinesGolden) {
  const Result r = two_stream_client_with_shares("-e");
  expect_golden("iperf2-client-P2-streams-enhanced.txt", join_lines(iperf2_report_lines(r)));
}

TEST(Iperf2Csv, EachStreamsIntervalRowsGolden) {
  // iperf 2.1.8 -y C -P 2 writes each stream's row and no sum row.
  const Result r = two_stream_client_with_shares("-y C");
  expect_golden("iperf2-client-P2-streams.csv", join_lines(iperf2_report_lines(r)));
}

// -s -e: the banner's read size and bin width, each stream's Reads=Dist and their [SUM], the
// streams in the order they began (their watch ids) although they ended the other way round.
TEST(Iperf2Console, EnhancedServerGolden) {
  Result r;
  r.spec = iperf2_line("-s -e");
  r.duration_s = 2.0005;
  const uint64_t bytes[] = {2684354560, 1621350000};
  const std::array<uint64_t, 8> bins[] = {{98, 0, 0, 197, 201, 0, 0, 20302},
                                          {65, 1, 0, 89, 113, 2, 2, 12253}};
  for (uint32_t id : {1u, 0u}) {  // in the order they ended
    ConnectionStats c;
    c.local = "127.0.0.1:5001";
    c.remote = "127.0.0.1:" + std::to_string(36054 + id);
    c.bytes = bytes[id];
    c.stream = id;
    ReadSizes reads;
    reads.bins = bins[id];
    for (uint64_t b : reads.bins) reads.reads += b;
    c.read_sizes = reads;
    r.connections.push_back(c);
    r.total_bytes += c.bytes;
  }
  expect_golden("iperf2-server-P2-enhanced.txt",
                join_lines(iperf2_banner_lines(r.spec)) + join_lines(iperf2_report_lines(r)));
}

TEST(Iperf2Csv, ClientWithIntervalsGolden) {
  const Result r = four_stream_client("-y C");
  EXPECT_TRUE(iperf2_banner_lines(r.spec).empty());
  expect_golden("iperf2-client-P4-intervals.csv", join_lines(iperf2_report_lines(r)));
}

TEST(Iperf2Csv, ServerSourceIsTheClient) {
  Result r;
  r.spec = iperf2_line("-s -y C");
  r.start_time = "2026-12-02T00:15:40Z";
  r.duration_s = 2.0049;
  ConnectionStats c;
  c.local = "127.0.0.1:5001";
  c.remote = "127.0.0.1:48044";
  c.bytes = 903872572;
  r.connections.push_back(c);
  r.total_bytes = c.bytes;
  // As iperf 2.1.8 -s -y C printed this stream (its timestamp aside): source = the client.
  ASSERT_EQ(iperf2_report_lines(r).size(), 1u);
  EXPECT_EQ(iperf2_report_lines(r)[0],
            "20261202001542,127.0.0.1,48044,127.0.0.1,5001,1,0.0-2.0,903872572,3606653985");
}

TEST(Iperf2Csv, EnhancedTimestampHasMilliseconds) {
  const Result r = four_stream_client("-y C -e");
  EXPECT_EQ(iperf2_report_lines(r).back().substr(0, 19), "20261202001543.002,");
}

}  // namespace
}  // namespace xttcp
