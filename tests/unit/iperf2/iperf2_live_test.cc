// The iperf2 dialect's live interval lines (engine/report/iperf2_live.hh): each interval's line
// is on the console as soon as the timeline hands the interval over, the header before the
// first; nothing with -y C, -x D or without -i. Golden: tests/golden/report/iperf2-live-*.
#include "engine/report/iperf2_live.hh"

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

TEST(Iperf2Live, WhenItPrints) {
  EXPECT_TRUE(Iperf2LiveReport::prints(live_spec("-c h -i 1")));
  EXPECT_TRUE(Iperf2LiveReport::prints(live_spec("-s -i 2")));
  EXPECT_TRUE(Iperf2LiveReport::prints(live_spec("-c h -i 1 -y C")));
  EXPECT_FALSE(Iperf2LiveReport::prints(live_spec("-c h")));
  // A server learns its streams' addresses at the end: its rows come with the report.
  EXPECT_FALSE(Iperf2LiveReport::prints(live_spec("-s -i 1 -y C")));
  EXPECT_FALSE(Iperf2LiveReport::prints(live_spec("-c h -i 1 -x D")));
}

}  // namespace
}  // namespace xttcp
