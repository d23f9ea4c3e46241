// The iperf2 dialect's live interval lines (engine/report/iperf2_live.hh): each interval's line
// is on the console as soon as the timeline hands the interval over, the header before the
// first; nothing with -y C, -x D or without -i. Golden: tests/golden/report/iperf2-live-*.
#include "engine/report/iperf2_live.hh"

#include <array>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "engine/report/log.hh"
#include "tests/unit/cli/cli_test_util.hh"
#include "tests/unit/report/golden.hh"

namespace xttcp {
namespace {

TestSpec live_spec(const std::string& line) {
  auto command = parse_iperf2_dialect(test::words(line));
  EXPECT_TRUE(command.has_value()) << line;
  return command ? command->spec : TestSpec{};
}

// A console on a temporary file, read back as it is written.
class LiveConsole {
 public:
  LiveConsole() : file_(std::tmpfile()) {
    Log::Options options;
    options.out = file_;
    options.err = file_;
    options.clock = [] { return std::string("00:00:00"); };
    log_ = std::move(*Log::open(options));
  }
  ~LiveConsole() { std::fclose(file_); }
  Log& log() { return *log_; }
  std::string text() {
    std::fflush(file_);
    std::string out;
    std::rewind(file_);
    for (int c = std::fgetc(file_); c != EOF; c = std::fgetc(file_)) out += static_cast<char>(c);
    return out;
  }

 private:
  std::FILE* file_;
  std::unique_ptr<Log> log_;
};

IntervalSample sample(double start_s, double seconds, uint64_t bytes, uint64_t calls) {
  IntervalSample s{start_s, seconds, bytes};
  s.operations = calls;
  s.streams = 1;
  return s;
}

TEST(Iperf2Live, EachIntervalIsPrintedAsItEnds) {
  const TestSpec spec = live_spec("-c 127.0.0.1 -t 3 -i 1 -e");
  LiveConsole console;
  Iperf2LiveReport live(spec, console.log());
  const auto start = std::chrono::system_clock::time_point{};
  live.interval(Role::sender, start, sample(0, 1.0002, 1400000000, 10681), false);
  // The first interval is out before the next one has ended.
  EXPECT_NE(console.text().find("[  1] 0.0000-1.0000 sec  1.30 GBytes  11.2 Gbits/sec  10681/0"),
            std::string::npos)
      << console.text();
  live.interval(Role::sender, start, sample(1.0002, 0.9981, 1380000000, 10529), false);
  live.interval(Role::sender, start, sample(2.0001, 0.4, 500000000, 3815), false);
  test::expect_golden("iperf2-live-client-enhanced.txt", console.text());
}

TEST(Iperf2Live, ServerSumsSeveralStreamsAndStartsEachTestAfresh) {
  const TestSpec spec = live_spec("-s -u -i 1 -e");
  LiveConsole console;
  Iperf2LiveReport live(spec, console.log());
  IntervalSample s = sample(0, 1, 1250000, 0);
  s.datagrams = 850;
  s.lost = 2;
  s.jitter_ns = 12000;
  s.streams = 2;
  live.interval(Role::receiver, std::chrono::system_clock::time_point{}, s, true);
  s.streams = 1;
  live.interval(Role::receiver, std::chrono::system_clock::time_point{std::chrono::seconds(9)}, s,
                true);
  test::expect_golden("iperf2-live-udp-server-enhanced.txt", console.text());
}

TEST(Iperf2Live, ClientCsvRowsFromItsStreamsEnds) {
  const TestSpec spec = live_spec("-c 127.0.0.1 -t 2 -i 1 -P 2 -y C");
  LiveConsole console;
  Iperf2LiveReport live(spec, console.log());
  live.connected({{"127.0.0.1:52356", "127.0.0.1:5001"}, {"127.0.0.1:52366", "127.0.0.1:5001"}});
  // 2026-12-02T07:05:51Z
  const std::chrono::system_clock::time_point start{std::chrono::seconds(1796195151)};
  live.interval(Role::sender, start, sample(0, 1.0001, 2281762490, 0), false);
  live.interval(Role::sender, start, sample(1.0001, 0.9999, 2781337413, 0), false);
  test::expect_golden("iperf2-live-client-P2.csv", console.text());
}

// One stream's share of an interval: a client's stream (its slot), with TCP_INFO at its end.
StreamInterval client_stream(uint64_t slot, uint64_t bytes, uint64_t writes, uint32_t retries,
                             uint32_t cwnd, uint32_t rtt_us) {
  StreamInterval s;
  s.key = slot;
  s.bytes = bytes;
  s.operations = writes;
  ConnectionInterval tcp;
  tcp.retransmits = retries;
  tcp.snd_cwnd = cwnd;
  tcp.snd_mss = 32741;
  tcp.rtt_us = rtt_us;
  tcp.rttvar_us = rtt_us / 2;
  s.tcp = tcp;
  return s;
}

IntervalSample with_streams(double start_s, double seconds, std::vector<StreamInterval> streams) {
  IntervalSample sample{start_s, seconds, 0};
  for (const StreamInterval& s : streams) {
    sample.bytes += s.bytes;
    sample.operations += s.operations;
  }
  sample.streams = static_cast<uint32_t>(streams.size());
  sample.per_stream = std::move(streams);
  return sample;
}

// As Debian's iperf 2.1.8 -c -P 2 -e -i 1 prints them: each stream's line with Write/Err, Rtry
// (in the interval), Cwnd/RTT(var) and NetPwr (TCP_INFO at its end), then the [SUM] with
// Write/Err and Rtry ("%d/%d%10d").
TEST(Iperf2Live, EachStreamsEnhancedLinesThenTheirSum) {
  const TestSpec spec = live_spec("-c 127.0.0.1 -t 2 -i 1 -P 2 -e");
  LiveConsole console;
  Iperf2LiveReport live(spec, console.log());
  const auto start = std::chrono::system_clock::time_point{};
  live.interval(Role::sender, start,
                with_streams(0, 1.0001,
                             {client_stream(0, 680525824, 5191, 19, 32, 77),
                              client_stream(1, 985661440, 7521, 0, 60, 411)}),
                false);
  EXPECT_NE(console.text().find("[  1] 0.0000-1.0000 sec   649 MBytes  5.44 Gbits/sec  5191/0  "
                                "       19     1023K/77(38) us  8837998\n"),
            std::string::npos)
      << console.text();
  EXPECT_NE(console.text().find("[SUM] 0.0000-1.0000 sec  1.55 GBytes  13.3 Gbits/sec  12712/0"
                                "        19\n"),
            std::string::npos)
      << console.text();
  live.interval(Role::sender, start,
                with_streams(1.0001, 0.9999,
                             {client_stream(0, 939524096, 7165, 15, 24, 167),
                              client_stream(1, 1696595968, 12979, 0, 100, 1067)}),
                false);
  test::expect_golden("iperf2-live-client-P2-enhanced.txt", console.text());
}

// A stream of a client that was not watched (past the 64 whose TCP_INFO is read) has its
// Write/Err alone, as iperf 2 prints it without TCP stats.
TEST(Iperf2Live, AStreamWithoutTcpInfoHasWritesAlone) {
  const TestSpec spec = live_spec("-c 127.0.0.1 -t 1 -i 1 -e");
  LiveConsole console;
  Iperf2LiveReport live(spec, console.log());
  StreamInterval s = client_stream(0, 1000000, 8, 0, 10, 50);
  s.tcp.reset();
  live.interval(Role::sender, {}, with_streams(0, 1, {s}), false);
  EXPECT_NE(console.text().find("[  1] 0.0000-1.0000 sec   977 KBytes  8.00 Mbits/sec  8/0\n"),
            std::string::npos)
      << console.text();
  EXPECT_EQ(console.text().find("[SUM]"), std::string::npos) << "one stream: no [SUM]";
}

// A server's streams are numbered in the order they began (their watch ids), each test afresh;
// -e adds Reads=Dist, each stream's and their sum.
TEST(Iperf2Live, ServerStreamsWithTheirReads) {
  const TestSpec spec = live_spec("-s -i 1 -e");
  LiveConsole console;
  Iperf2LiveReport live(spec, console.log());
  auto stream = [](uint64_t id, uint64_t bytes, std::array<uint64_t, 8> bins) {
    StreamInterval s;
    s.key = id;
    s.bytes = bytes;
    ReadSizes reads;
    reads.bins = bins;
    for (uint64_t b : bins) reads.reads += b;
    s.operations = reads.reads;
    s.read_sizes = reads;
    return s;
  };
  const std::chrono::system_clock::time_point first{std::chrono::seconds(100)};
  live.interval(Role::receiver, first,
                with_streams(0, 1,
                             {stream(7, 679477248, {15, 1, 0, 32, 50, 2, 2, 5144}),
                              stream(8, 985661440, {19, 0, 0, 70, 76, 0, 0, 7449})}),
                false);
  // The next test: its first stream is [  1] again, whatever its id.
  live.interval(Role::receiver, first + std::chrono::seconds(60),
                with_streams(0, 0.5, {stream(12, 65536, {0, 0, 0, 0, 0, 0, 0, 1})}), false);
  test::expect_golden("iperf2-live-server-P2-enhanced.txt", console.text());
}

// A UDP server's streams: jitter, loss and out-of-order of each, then their [SUM].
TEST(Iperf2Live, UdpServerStreams) {
  const TestSpec spec = live_spec("-s -u -i 1");
  LiveConsole console;
  Iperf2LiveReport live(spec, console.log());
  StreamInterval a, b;
  a.key = 0x5a5a9d7e;
  a.bytes = 852 * 1470;
  a.datagrams = 852;
  a.jitter_ns = 5000;
  a.reordered = 1;
  b.key = 0x5a5a9d7d;
  b.bytes = 854 * 1470;
  b.datagrams = 854;
  b.lost = 1;
  b.jitter_ns = 1000;
  IntervalSample sample = with_streams(0, 1, {a, b});
  sample.datagrams = 852 + 854;
  sample.lost = 1;
  live.interval(Role::receiver, {}, sample, true);
  test::expect_golden("iperf2-live-udp-server-P2.txt", console.text());
}

// -y C on a server: each stream's row as its interval ends, the client as the source, as iperf
// 2.1.8 writes them (no sum row).
TEST(Iperf2Live, ServerCsvRowsOfEachStream) {
  const TestSpec spec = live_spec("-s -i 1 -y C");
  LiveConsole console;
  Iperf2LiveReport live(spec, console.log());
  live.stream_began(0, {"127.0.0.1:5001", "127.0.0.1:34146"});
  live.stream_began(1, {"127.0.0.1:5001", "127.0.0.1:34150"});
  StreamInterval a, b;
  a.key = 0;
  a.bytes = 1191051324;
  b.key = 1;
  b.bytes = 634781226;
  const std::chrono::system_clock::time_point start{std::chrono::seconds(1796195151)};
  live.interval(Role::receiver, start, with_streams(0, 1.0002, {a, b}), false);
  a.bytes = 1425932288;
  b.bytes = 1297089042;
  live.interval(Role::receiver, start, with_streams(1.0002, 0.9998, {a, b}), false);
  test::expect_golden("iperf2-live-server-P2.csv", console.text());
}

// -u -y C on a server: each stream's row with its jitter, loss, total and out-of-order, as
// iperf 2.1.8 -s -u -y C -i 1 writes them.
TEST(Iperf2Live, UdpServerCsvRowsOfEachStream) {
  const TestSpec spec = live_spec("-s -u -i 1 -y C");
  LiveConsole console;
  Iperf2LiveReport live(spec, console.log());
  live.stream_began(0x00a3c2f8, {"127.0.0.1:5001", "127.0.0.1:49912"});
  live.stream_began(0x00a3d690, {"127.0.0.1:5001", "127.0.0.1:54928"});
  StreamInterval a, b;
  a.key = 0x00a3c2f8;
  a.bytes = 135240;
  a.datagrams = 92;
  a.jitter_ns = 12000;
  a.reordered = 1;
  b.key = 0x00a3d690;
  b.bytes = 133770;
  b.datagrams = 91;
  b.lost = 1;
  b.jitter_ns = 8000;
  IntervalSample sample = with_streams(0, 1.0001, {a, b});
  const std::chrono::system_clock::time_point start{std::chrono::seconds(1796195151)};
  live.interval(Role::receiver, start, sample, true);
  test::expect_golden("iperf2-live-udp-server-P2.csv", console.text());
}

TEST(Iperf2Live, WhenItPrints) {
  EXPECT_TRUE(Iperf2LiveReport::prints(live_spec("-c h -i 1")));
  EXPECT_TRUE(Iperf2LiveReport::prints(live_spec("-s -i 2")));
  EXPECT_TRUE(Iperf2LiveReport::prints(live_spec("-c h -i 1 -y C")));
  EXPECT_FALSE(Iperf2LiveReport::prints(live_spec("-c h")));
  // A server learns each stream's addresses as it begins.
  EXPECT_TRUE(Iperf2LiveReport::prints(live_spec("-s -i 1 -y C")));
  EXPECT_TRUE(Iperf2LiveReport::prints(live_spec("-s -u -i 1 -y C")));
  EXPECT_FALSE(Iperf2LiveReport::prints(live_spec("-c h -i 1 -x D")));
}

}  // namespace
}  // namespace xttcp
