// iperf3's console lines from figures, checked against the lines Debian's iperf3 3.12 printed
// (tests/reference/iperf3-3.12/server-tcp*.txt, *-udp*.txt): the same numbers give the same text.
#include "engine/iperf3/console.hh"

#include <gtest/gtest.h>

#include <fstream>
#include <tuple>

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
      {{false, "", {{5, 3960000000, 2, std::nullopt}, {8, 3915000000, 2, std::nullopt}}}}, 'a',
      false);
  EXPECT_EQ(lines,
            (std::vector<std::string>{
                "[ ID] Interval           Transfer     Bitrate",
                "[  5]   0.00-2.00   sec  3.69 GBytes  15.8 Gbits/sec                  receiver",
                "[  8]   0.00-2.00   sec  3.65 GBytes  15.7 Gbits/sec                  receiver",
                "[SUM]   0.00-2.00   sec  7.33 GBytes  31.5 Gbits/sec                  receiver",
            }));
  EXPECT_EQ(summary_lines({{true, "", {{5, 1, 2, 0}}}}, 'a', true).front(), separator);
}

TEST(Lines, TheClientsSummaryAsClientTcpP2) {
  // client-tcp-P2.txt: each stream's sender then receiver row, the [SUM] rows at the last
  // stream's times.
  const auto lines = client_summary_lines(
      {{true,
        "",
        {{5, 3962000000, 1.996, 0, 3958000000, 2.004}, {7, 3919000000, 2.0, 0, 3915000000, 2.0}}}},
      'a', false);
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
  const auto one = client_summary_lines({{true, "", {{5, 1000, 1, 3, 990, 1}}}}, 'a', true);
  ASSERT_EQ(one.size(), 4u);
  EXPECT_EQ(one[0], separator);
  EXPECT_TRUE(one[2].ends_with("/sec    3             sender")) << one[2];
  // A sender that knows no retransmits: no Retr column at all.
  EXPECT_EQ(
      client_summary_lines({{true, "", {{5, 1000, 1, std::nullopt, 990, 1}}}}, 'a', false).front(),
      header(false, false));
}

TEST(LiveReport, EachIntervalsRowsThenSumAndSeparator) {
  std::vector<std::string> printed;
  LiveReport live({5, 8}, one_direction(false, 2), 'a', 1.0,
                  [&](const std::string& l) { printed.push_back(l); });
  IntervalSample sample;
  sample.start_s = 0;
  sample.seconds = 1;
  sample.bytes = 3970000000;
  sample.per_stream = {StreamInterval{0, 1997000000}, StreamInterval{1, 1973000000}};
  live.intervals({sample}, false);
  EXPECT_EQ(printed, (std::vector<std::string>{
                         "[ ID] Interval           Transfer     Bitrate",
                         "[  5]   0.00-1.00   sec  1.86 GBytes  16.0 Gbits/sec                  ",
                         "[  8]   0.00-1.00   sec  1.84 GBytes  15.8 Gbits/sec                  ",
                         "[SUM]   0.00-1.00   sec  3.70 GBytes  31.8 Gbits/sec                  ",
                         separator,
                     }));
  EXPECT_TRUE(live.ended_with_separator());
  // -O: the omit period's rows are marked, as 3.12 marks them (its server, -O 1 -P 2).
  printed.clear();
  sample.omitted = true;
  live.intervals({sample}, false);
  ASSERT_EQ(printed.size(), 4u);
  EXPECT_EQ(printed[0],
            "[  5]   0.00-1.00   sec  1.86 GBytes  16.0 Gbits/sec                  (omitted)");
  EXPECT_EQ(printed[2],
            "[SUM]   0.00-1.00   sec  3.70 GBytes  31.8 Gbits/sec                  (omitted)");
  sample.omitted = false;
  // A last interval shorter than a tenth of -i that carried nothing is left out, as 3.12 does.
  IntervalSample empty;
  empty.start_s = 1;
  empty.seconds = 0.05;
  printed.clear();
  live.intervals({empty}, false);
  EXPECT_TRUE(printed.empty());
}

// The UDP samples (-b 100M -t 2, 32768-byte datagrams): 763 datagrams are 23.8 MBytes.
constexpr uint64_t datagram = 32768;

std::vector<std::string> live_udp(bool sender, std::vector<int> ids,
                                  const std::vector<IntervalSample>& samples) {
  std::vector<std::string> printed;
  const std::size_t streams = ids.size();
  LiveReport live(std::move(ids), one_direction(sender, streams), 'a', 1.0,
                  [&](const std::string& l) { printed.push_back(l); });
  for (const IntervalSample& s : samples) live.intervals({s}, true);
  return printed;
}

// One interval: each stream's bytes from its datagrams (received, for a receiver), its lost and
// its jitter in ns.
IntervalSample udp_interval(double start_s, double seconds,
                            std::vector<std::tuple<uint64_t, uint64_t, uint64_t>> streams) {
  IntervalSample sample;
  sample.start_s = start_s;
  sample.seconds = seconds;
  for (std::size_t i = 0; i < streams.size(); ++i) {
    const auto [datagrams, lost, jitter_ns] = streams[i];
    sample.per_stream.push_back(
        StreamInterval{i, datagrams * datagram, 0, datagrams, lost, 0, jitter_ns});
    sample.bytes += datagrams * datagram;
  }
  return sample;
}

TEST(Udp, RowsAndLostPercentAs312) {
  EXPECT_EQ(udp_header(true),
            "[ ID] Interval           Transfer     Bitrate         Total Datagrams");
  EXPECT_EQ(udp_header(false),
            "[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams");
  UdpRow row{5, 0, 2, 763 * datagram};
  row.jitter_ms = 0.05;
  row.total = 763;
  row.tail = "receiver";
  EXPECT_EQ(udp_row_text(row, 'a'),
            "[  5]   0.00-2.00   sec  23.8 MBytes   100 Mbits/sec  0.050 ms  0/763 (0%)  receiver");
  // %.2g: 0.5 as "0.5", a third as "33", all as "1e+02".
  row.lost = 5;
  row.total = 1000;
  EXPECT_TRUE(udp_row_text(row, 'a').ends_with("  5/1000 (0.5%)  receiver"));
  row.lost = 1;
  row.total = 3;
  EXPECT_TRUE(udp_row_text(row, 'a').ends_with("  1/3 (33%)  receiver"));
  row.lost = 3;
  EXPECT_TRUE(udp_row_text(row, 'a').ends_with("  3/3 (1e+02%)  receiver"));
  row.total = 0;
  EXPECT_TRUE(udp_row_text(row, 'a').ends_with("  3/0 (0%)  receiver"));
}

TEST(Udp, TheClientAsClientUdp) {
  // The second interval was a little over a second: 99.8 Mbits/sec.
  EXPECT_EQ(live_udp(true, {5},
                     {udp_interval(0, 1, {{382, 0, 0}}), udp_interval(1, 1.0005, {{381, 0, 0}})}),
            (std::vector<std::string>{
                "[ ID] Interval           Transfer     Bitrate         Total Datagrams",
                "[  5]   0.00-1.00   sec  11.9 MBytes   100 Mbits/sec  382  ",
                "[  5]   1.00-2.00   sec  11.9 MBytes  99.8 Mbits/sec  381  ",
            }));
  EXPECT_EQ(
      client_udp_summary_lines(
          {{true, "", {{5, 763 * datagram, 2, 763, 763 * datagram, 2, 0.05, 0, 763}}}}, 'a', true),
      (std::vector<std::string>{
          separator,
          "[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams",
          "[  5]   0.00-2.00   sec  23.8 MBytes   100 Mbits/sec  0.000 ms  0/763 (0%)  sender",
          "[  5]   0.00-2.00   sec  23.8 MBytes   100 Mbits/sec  0.050 ms  0/763 (0%)  receiver",
      }));
}

TEST(Udp, TwoStreamsAsClientUdpP2) {
  // The second interval was a little under a second: 381 datagrams at 100 Mbits/sec.
  EXPECT_EQ(live_udp(true, {5, 7},
                     {udp_interval(0, 1, {{382, 0, 0}, {382, 0, 0}}),
                      udp_interval(1.003, 0.997, {{381, 0, 0}, {381, 0, 0}})}),
            (std::vector<std::string>{
                "[ ID] Interval           Transfer     Bitrate         Total Datagrams",
                "[  5]   0.00-1.00   sec  11.9 MBytes   100 Mbits/sec  382  ",
                "[  7]   0.00-1.00   sec  11.9 MBytes   100 Mbits/sec  382  ",
                "[SUM]   0.00-1.00   sec  23.9 MBytes   200 Mbits/sec  764  ",
                separator,
                "[  5]   1.00-2.00   sec  11.9 MBytes   100 Mbits/sec  381  ",
                "[  7]   1.00-2.00   sec  11.9 MBytes   100 Mbits/sec  381  ",
                "[SUM]   1.00-2.00   sec  23.8 MBytes   200 Mbits/sec  762  ",
                separator,
            }));
  const uint64_t bytes = 763 * datagram;
  EXPECT_EQ(
      client_udp_summary_lines({{true,
                                 "",
                                 {{5, bytes, 2, 763, bytes, 2, 0.053, 0, 763},
                                  {7, bytes, 2, 763, bytes, 2, 0.051, 0, 763}}}},
                               'a', false),
      (std::vector<std::string>{
          "[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams",
          "[  5]   0.00-2.00   sec  23.8 MBytes   100 Mbits/sec  0.000 ms  0/763 (0%)  sender",
          "[  5]   0.00-2.00   sec  23.8 MBytes   100 Mbits/sec  0.053 ms  0/763 (0%)  receiver",
          "[  7]   0.00-2.00   sec  23.8 MBytes   100 Mbits/sec  0.000 ms  0/763 (0%)  sender",
          "[  7]   0.00-2.00   sec  23.8 MBytes   100 Mbits/sec  0.051 ms  0/763 (0%)  receiver",
          "[SUM]   0.00-2.00   sec  47.7 MBytes   200 Mbits/sec  0.000 ms  0/1526 (0%)  sender",
          "[SUM]   0.00-2.00   sec  47.7 MBytes   200 Mbits/sec  0.052 ms  0/1526 (0%)  receiver",
      }));
}

TEST(Udp, TheReceivingClientAsClientUdpR) {
  EXPECT_EQ(
      live_udp(false, {5},
               {udp_interval(0, 1, {{382, 0, 9000}}), udp_interval(1, 1, {{381, 0, 15000}})}),
      (std::vector<std::string>{
          "[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams",
          "[  5]   0.00-1.00   sec  11.9 MBytes   100 Mbits/sec  0.009 ms  0/382 (0%)  ",
          "[  5]   1.00-2.00   sec  11.9 MBytes  99.9 Mbits/sec  0.015 ms  0/381 (0%)  ",
      }));
  const uint64_t bytes = 763 * datagram;
  EXPECT_EQ(
      client_udp_summary_lines({{false, "", {{5, bytes, 2, 763, bytes, 2, 0.015, 0, 763}}}}, 'a',
                               true),
      (std::vector<std::string>{
          separator,
          "[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams",
          "[  5]   0.00-2.00   sec  23.8 MBytes   100 Mbits/sec  0.000 ms  0/763 (0%)  sender",
          "[  5]   0.00-2.00   sec  23.8 MBytes   100 Mbits/sec  0.015 ms  0/763 (0%)  receiver",
      }));
}

TEST(Udp, ServersAsServerUdpAndServerUdpR) {
  const uint64_t bytes = 763 * datagram;
  // A receiving server: the receiver's rows only.
  EXPECT_EQ(
      live_udp(false, {5},
               {udp_interval(0, 1, {{382, 0, 7000}}), udp_interval(1, 1, {{381, 0, 50000}})}),
      (std::vector<std::string>{
          "[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams",
          "[  5]   0.00-1.00   sec  11.9 MBytes   100 Mbits/sec  0.007 ms  0/382 (0%)  ",
          "[  5]   1.00-2.00   sec  11.9 MBytes  99.9 Mbits/sec  0.050 ms  0/381 (0%)  ",
      }));
  EXPECT_EQ(
      udp_summary_lines({{false, "", {{5, bytes, 2, 0.05, 0, 763}}}}, 'a', true),
      (std::vector<std::string>{
          separator,
          "[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams",
          "[  5]   0.00-2.00   sec  23.8 MBytes   100 Mbits/sec  0.050 ms  0/763 (0%)  receiver",
      }));
  // A sending server (-R): the sender's rows only, 0.000 ms and 0 lost of what it sent.
  EXPECT_EQ(
      live_udp(true, {5}, {udp_interval(0, 1, {{382, 0, 0}}), udp_interval(1, 1, {{381, 0, 0}})}),
      (std::vector<std::string>{
          "[ ID] Interval           Transfer     Bitrate         Total Datagrams",
          "[  5]   0.00-1.00   sec  11.9 MBytes   100 Mbits/sec  382  ",
          "[  5]   1.00-2.00   sec  11.9 MBytes  99.9 Mbits/sec  381  ",
      }));
  EXPECT_EQ(
      udp_summary_lines({{true, "", {{5, bytes, 2, 0.05, 2, 763}}}}, 'a', true),
      (std::vector<std::string>{
          separator,
          "[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams",
          "[  5]   0.00-2.00   sec  23.8 MBytes   100 Mbits/sec  0.000 ms  0/763 (0%)  sender",
      }));
}

TEST(Udp, TwoStreamsAsServerUdpP2) {
  EXPECT_EQ(
      live_udp(false, {5, 6}, {udp_interval(0, 1, {{382, 0, 15200}, {382, 0, 10300}})}),
      (std::vector<std::string>{
          "[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams",
          "[  5]   0.00-1.00   sec  11.9 MBytes   100 Mbits/sec  0.015 ms  0/382 (0%)  ",
          "[  6]   0.00-1.00   sec  11.9 MBytes   100 Mbits/sec  0.010 ms  0/382 (0%)  ",
          "[SUM]   0.00-1.00   sec  23.9 MBytes   200 Mbits/sec  0.013 ms  0/764 (0%)  ",
          separator,
      }));
  const uint64_t bytes = 763 * datagram;
  EXPECT_EQ(
      udp_summary_lines({{false, "", {{5, bytes, 2, 0.053, 0, 763}, {6, bytes, 2, 0.051, 0, 763}}}},
                        'a', false),
      (std::vector<std::string>{
          "[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams",
          "[  5]   0.00-2.00   sec  23.8 MBytes   100 Mbits/sec  0.053 ms  0/763 (0%)  receiver",
          "[  6]   0.00-2.00   sec  23.8 MBytes   100 Mbits/sec  0.051 ms  0/763 (0%)  receiver",
          "[SUM]   0.00-2.00   sec  47.7 MBytes   200 Mbits/sec  0.052 ms  0/1526 (0%)  receiver",
      }));
}

TEST(Udp, LossAndReorderingAsIperfPrintResults) {
  // A receiver's interval: lost of lost + received; [SUM]: summed, jitter the mean.
  const auto rows = live_udp(false, {5, 6}, {udp_interval(0, 1, {{95, 5, 1000}, {100, 0, 3000}})});
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_TRUE(rows[1].ends_with("  0.001 ms  5/100 (5%)  ")) << rows[1];
  EXPECT_TRUE(rows[3].ends_with("  0.002 ms  5/200 (2.5%)  ")) << rows[3];
  // The client's [SUM] receiver row: lost % over the senders' counts, total the receivers'.
  UdpStreamBothEnds a{5, 1000, 2, 100, 900, 2, 0.1, 10, 98};
  a.out_of_order = 3;
  const UdpStreamBothEnds b{7, 1000, 2.5, 100, 1000, 2.5, 0.3, 0, 100};
  const auto lines = client_udp_summary_lines({{true, "", {a, b}}}, 'a', false);
  ASSERT_EQ(lines.size(), 8u);
  EXPECT_TRUE(lines[1].ends_with("  0.000 ms  0/100 (0%)  sender")) << lines[1];
  EXPECT_EQ(lines[2], "[SUM]  0.0- 2.0 sec  3 datagrams received out-of-order");
  EXPECT_TRUE(lines[3].ends_with("  0.100 ms  10/98 (10%)  receiver")) << lines[3];
  EXPECT_TRUE(lines[5].starts_with("[  7]   0.00-2.00   sec")) << lines[5];  // the first's times
  EXPECT_TRUE(lines[6].ends_with("  0.000 ms  0/200 (0%)  sender")) << lines[6];
  EXPECT_TRUE(lines[7].ends_with("  0.200 ms  10/198 (5%)  receiver")) << lines[7];
}

}  // namespace
}  // namespace xttcp::iperf3

namespace xttcp::iperf3 {
namespace {

// --bidir: the lines of the reference's bidir samples, from figures that print the same.
std::vector<std::string> reference_lines(const std::string& name, std::size_t from,
                                         std::size_t count) {
  std::ifstream in(std::string(IPERF3_REFERENCE_DIR) + "/" + name);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  if (from + count > lines.size()) return {};
  return {lines.begin() + static_cast<std::ptrdiff_t>(from),
          lines.begin() + static_cast<std::ptrdiff_t>(from + count)};
}

Parameters bidir_test(bool udp) {
  Parameters p;
  p.protocol = udp ? Protocol::udp : Protocol::tcp;
  p.parallel = 1;
  p.bidirectional = true;
  return p;
}

// One TCP stream's interval share: its bytes and (sending) its cwnd as snd_cwnd × snd_mss.
StreamInterval tcp_share(uint64_t bytes, uint32_t snd_cwnd = 0, uint32_t snd_mss = 0) {
  StreamInterval s{0, bytes};
  if (snd_mss > 0) {
    ConnectionInterval tcp;
    tcp.snd_cwnd = snd_cwnd;
    tcp.snd_mss = snd_mss;
    s.tcp = tcp;
  }
  return s;
}

IntervalSample tcp_interval(double start_s, StreamInterval share) {
  IntervalSample sample;
  sample.start_s = start_s;
  sample.seconds = 1;
  sample.bytes = share.bytes;
  sample.per_stream = {share};
  return sample;
}

TEST(Bidir, TheClientAsClientTcpBidir) {
  std::vector<std::string> printed;
  LiveReport live({5, 7}, stream_groups(true, bidir_test(false)), 'a', 1.0,
                  [&](const std::string& l) { printed.push_back(l); });
  live.intervals(
      {tcp_interval(0, tcp_share(1986422374, 48, 32768)), tcp_interval(0, tcp_share(2018634629))},
      false);
  live.intervals(
      {tcp_interval(1, tcp_share(1975684956, 1023, 1024)), tcp_interval(1, tcp_share(2005216000))},
      false);
  EXPECT_EQ(printed, reference_lines("client-tcp-bidir.txt", 3, 5));
  EXPECT_FALSE(live.ended_with_separator());  // one stream each way: no [SUM], no separator
  const std::vector<std::string> summary =
      client_summary_lines({{true, "[TX-C]", {{5, 3962131333, 2.0, 0, 3962131333, 2.01}}},
                            {false, "[RX-C]", {{7, 4026531840, 2.0, 1, 4026531840, 2.01}}}},
                           'a', true);
  EXPECT_EQ(summary, reference_lines("client-tcp-bidir.txt", 8, 6));
}

TEST(Bidir, TheServersSummaryAsServerTcpBidir) {
  // Its receive streams first; each group its own direction's row only.
  const std::vector<std::string> summary =
      summary_lines({{false, "[RX-S]", {{5, 3962131333, 2.0051, std::nullopt}}},
                     {true, "[TX-S]", {{8, 4026531840, 2.0051, 1}}}},
                    'a', true);
  EXPECT_EQ(summary, reference_lines("server-tcp-bidir.txt", 13, 4));
}

TEST(Bidir, TheClientAsClientUdpBidir) {
  std::vector<std::string> printed;
  LiveReport live({5, 7}, stream_groups(true, bidir_test(true)), 'a', 1.0,
                  [&](const std::string& l) { printed.push_back(l); });
  live.intervals({udp_interval(0, 1, {{382, 0, 0}}), udp_interval(0, 1, {{382, 0, 9000}})}, true);
  live.intervals({udp_interval(1, 1, {{381, 0, 0}}), udp_interval(1, 1, {{381, 0, 15000}})}, true);
  EXPECT_EQ(printed, reference_lines("client-udp-bidir.txt", 3, 5));
  const uint64_t bytes = 763 * datagram;
  EXPECT_EQ(
      client_udp_summary_lines({{true, "[TX-C]", {{5, bytes, 2, 763, bytes, 2, 0.004, 0, 763}}},
                                {false, "[RX-C]", {{7, bytes, 2, 763, bytes, 2, 0.015, 0, 763}}}},
                               'a', true),
      reference_lines("client-udp-bidir.txt", 8, 6));
}

TEST(Bidir, TheServersSummaryAsServerUdpBidir) {
  const uint64_t bytes = 763 * datagram;
  EXPECT_EQ(udp_summary_lines({{false, "[RX-S]", {{5, bytes, 2, 0.004, 0, 763}}},
                               {true, "[TX-S]", {{6, bytes, 2, 0, 0, 763}}}},
                              'a', true),
            reference_lines("server-udp-bidir.txt", 11, 4));
}

TEST(Bidir, EachEndsGroupsAndTheirSumNames) {
  const std::vector<StreamGroup> client = stream_groups(true, bidir_test(false));
  ASSERT_EQ(client.size(), 2u);
  EXPECT_TRUE(client[0].sending);
  EXPECT_EQ(client[0].sum_name, "sum");
  EXPECT_EQ(client[1].role, "[RX-C]");
  EXPECT_EQ(client[1].first, 1u);
  EXPECT_EQ(client[1].sum_name, "sum_bidir_reverse");
  const std::vector<StreamGroup> server = stream_groups(false, bidir_test(false));
  EXPECT_FALSE(server[0].sending);
  EXPECT_EQ(server[0].role, "[RX-S]");
  EXPECT_EQ(server[0].sum_name, "sum");  // the client's sends, at both ends
  EXPECT_EQ(server[1].sum_name, "sum_bidir_reverse");
  Parameters reverse;
  reverse.parallel = 3;
  reverse.reverse = true;
  const std::vector<StreamGroup> one = stream_groups(true, reverse);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_FALSE(one[0].sending);
  EXPECT_EQ(one[0].count, 3u);
  EXPECT_EQ(one[0].role, "");
}

}  // namespace
}  // namespace xttcp::iperf3
