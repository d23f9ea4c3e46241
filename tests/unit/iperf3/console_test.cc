// iperf3's console lines from figures, checked against the lines Debian's iperf3 3.12 printed
// (tests/reference/iperf3-3.12/server-tcp*.txt): the same numbers give the same text.
#include "engine/iperf3/console.hh"

#include <gtest/gtest.h>

namespace xttcp::iperf3 {
namespace {

TEST(UnitText, As312sUnitSnprintf) {
  EXPECT_EQ(unit_text(4.516e9, 'A'), "4.21 GByte");  // 1024-based bytes
  EXPECT_EQ(unit_text(4.516e9, 'a'), "36.1 Gbit");   // 1000-based bits
  EXPECT_EQ(unit_text(8.38 * 1024 * 1024, 'A'), "8.38 MByte");
  EXPECT_EQ(unit_text(895 * 1024, 'A'), " 895 KByte");
  EXPECT_EQ(unit_text(1023 * 1024, 'A'), "1023 KByte");
  EXPECT_EQ(unit_text(0, 'a'), "0.00 bit");
  EXPECT_EQ(unit_text(125e6, 'm'), "1000 Mbit");  // a fixed unit
  EXPECT_EQ(unit_text(125e6, 'M'), " 119 MByte");
  EXPECT_EQ(unit_text(1e9, 'g'), "8.00 Gbit");
}

TEST(Rows, TheSamplesLines) {
  // server-tcp.txt: "[  5]   0.00-1.00   sec  4.21 GBytes  36.1 Gbits/sec                  "
  Row interval{5, 0, 1, 4516000000, std::nullopt, std::nullopt, ""};
  EXPECT_EQ(row_text(interval, 'a'),
            "[  5]   0.00-1.00   sec  4.21 GBytes  36.1 Gbits/sec                  ");
  // server-tcp-R.txt: a sending server's interval, with Retr and Cwnd.
  Row sending{5, 1, 2, 4306000000, 0, 895 * 1024, ""};
  EXPECT_EQ(row_text(sending, 'a'),
            "[  5]   1.00-2.00   sec  4.01 GBytes  34.4 Gbits/sec    0    895 KBytes       ");
  Row summary{5, 0, 2, 8751000000, 0, std::nullopt, "sender"};
  EXPECT_EQ(row_text(summary, 'a'),
            "[  5]   0.00-2.00   sec  8.15 GBytes  35.0 Gbits/sec    0             sender");
  Row sum{std::nullopt, 0, 2, 7870000000, std::nullopt, std::nullopt, "receiver"};
  EXPECT_EQ(row_text(sum, 'a'),
            "[SUM]   0.00-2.00   sec  7.33 GBytes  31.5 Gbits/sec                  receiver");
  EXPECT_EQ(header(false, false), "[ ID] Interval           Transfer     Bitrate");
  EXPECT_EQ(header(true, true), "[ ID] Interval           Transfer     Bitrate         Retr  Cwnd");
}

TEST(Lines, BannerAndConnections) {
  EXPECT_EQ(
      banner_lines(5999, 1),
      (std::vector<std::string>{"-----------------------------------------------------------",
                                "Server listening on 5999 (test #1)",
                                "-----------------------------------------------------------"}));
  EXPECT_EQ(accepted_line("127.0.0.1", 44936), "Accepted connection from 127.0.0.1, port 44936");
  EXPECT_EQ(connected_line(5, "127.0.0.1", 5999, "127.0.0.1", 44938),
            "[  5] local 127.0.0.1 port 5999 connected to 127.0.0.1 port 44938");
}

TEST(Lines, TheSummaryOfSeveralStreamsAsServerTcpP2) {
  const auto lines = summary_lines(
      {{5, 3960000000, 2, std::nullopt}, {8, 3915000000, 2, std::nullopt}}, false, 'a', false);
  EXPECT_EQ(lines,
            (std::vector<std::string>{
                "[ ID] Interval           Transfer     Bitrate",
                "[  5]   0.00-2.00   sec  3.69 GBytes  15.8 Gbits/sec                  receiver",
                "[  8]   0.00-2.00   sec  3.65 GBytes  15.7 Gbits/sec                  receiver",
                "[SUM]   0.00-2.00   sec  7.33 GBytes  31.5 Gbits/sec                  receiver",
            }));
  EXPECT_EQ(summary_lines({{5, 1, 2, 0}}, true, 'a', true).front(), separator);
}

TEST(Lines, TheClientsSummaryAsClientTcpP2) {
  // client-tcp-P2.txt: each stream's sender then receiver row, the [SUM] rows at the last
  // stream's times.
  const auto lines = client_summary_lines(
      {{5, 3962000000, 1.996, 0, 3958000000, 2.004}, {7, 3919000000, 2.0, 0, 3915000000, 2.0}}, 'a',
      false);
  EXPECT_EQ(lines,
            (std::vector<std::string>{
                "[ ID] Interval           Transfer     Bitrate         Retr",
                "[  5]   0.00-2.00   sec  3.69 GBytes  15.9 Gbits/sec    0             sender",
                "[  5]   0.00-2.00   sec  3.69 GBytes  15.8 Gbits/sec                  receiver",
                "[  7]   0.00-2.00   sec  3.65 GBytes  15.7 Gbits/sec    0             sender",
                "[  7]   0.00-2.00   sec  3.65 GBytes  15.7 Gbits/sec                  receiver",
                "[SUM]   0.00-2.00   sec  7.34 GBytes  31.5 Gbits/sec    0             sender",
                "[SUM]   0.00-2.00   sec  7.33 GBytes  31.5 Gbits/sec                  receiver",
            }));
  // One stream: no [SUM]; after intervals of one stream, the separator first.
  const auto one = client_summary_lines({{5, 1000, 1, 3, 990, 1}}, 'a', true);
  ASSERT_EQ(one.size(), 4u);
  EXPECT_EQ(one[0], separator);
  EXPECT_TRUE(one[2].ends_with("/sec    3             sender")) << one[2];
  // A sender that knows no retransmits: no Retr column at all.
  EXPECT_EQ(client_summary_lines({{5, 1000, 1, std::nullopt, 990, 1}}, 'a', false).front(),
            header(false, false));
}

TEST(LiveReport, EachIntervalsRowsThenSumAndSeparator) {
  std::vector<std::string> printed;
  LiveReport live({5, 8}, false, 'a', 1.0, [&](const std::string& l) { printed.push_back(l); });
  IntervalSample sample;
  sample.start_s = 0;
  sample.seconds = 1;
  sample.bytes = 3970000000;
  sample.per_stream = {StreamInterval{0, 1997000000}, StreamInterval{1, 1973000000}};
  live.interval(Role::receiver, {}, sample, false);
  EXPECT_EQ(printed, (std::vector<std::string>{
                         "[ ID] Interval           Transfer     Bitrate",
                         "[  5]   0.00-1.00   sec  1.86 GBytes  16.0 Gbits/sec                  ",
                         "[  8]   0.00-1.00   sec  1.84 GBytes  15.8 Gbits/sec                  ",
                         "[SUM]   0.00-1.00   sec  3.70 GBytes  31.8 Gbits/sec                  ",
                         separator,
                     }));
  EXPECT_TRUE(live.ended_with_separator());
  // A last interval shorter than a tenth of -i that carried nothing is left out, as 3.12 does.
  IntervalSample empty;
  empty.start_s = 1;
  empty.seconds = 0.05;
  printed.clear();
  live.interval(Role::receiver, {}, empty, false);
  EXPECT_TRUE(printed.empty());
}

}  // namespace
}  // namespace xttcp::iperf3
