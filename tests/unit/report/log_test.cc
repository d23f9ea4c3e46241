#include "engine/report/log.hh"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <termios.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "tests/unit/report/golden.hh"

namespace xttcp {
namespace {

std::string contents(FILE* file) {
  std::fflush(file);
  std::rewind(file);
  std::string text;
  char buffer[4096];
  while (std::size_t n = std::fread(buffer, 1, sizeof buffer, file)) text.append(buffer, n);
  return text;
}

struct Captured {
  FILE* out = std::tmpfile();
  FILE* err = std::tmpfile();
  ~Captured() {
    std::fclose(out);
    std::fclose(err);
  }
  Log::Options options() const {
    Log::Options o;
    o.clock = [] { return std::string("13:01:00"); };
    o.out = out;
    o.err = err;
    return o;
  }
};

TEST(Log, PrefixesAndStreams) {
  Captured c;
  auto log = Log::open(c.options());
  ASSERT_TRUE(log) << log.error().message;
  (*log)->raw("NTTTCP for Linux 1.4.3");
  (*log)->info("2 threads created");
  (*log)->debug("hidden without -V");
  (*log)->error("receiver is busy");
  EXPECT_EQ(contents(c.out), "NTTTCP for Linux 1.4.3\n13:01:00 INFO: 2 threads created\n");
  EXPECT_EQ(contents(c.err), "13:01:00 ERR : receiver is busy\n");
}

TEST(Log, VerbosePrintsDebug) {
  Captured c;
  Log::Options o = c.options();
  o.verbose = true;
  auto log = Log::open(o);
  ASSERT_TRUE(log);
  (*log)->debug("user limits for maximum number of open files: soft: 20000; hard: 20000");
  EXPECT_EQ(
      contents(c.out),
      "13:01:00 DBG : user limits for maximum number of open files: soft: 20000; hard: 20000\n");
}

TEST(Log, RealtimeOnAPipeOrFileEndsWithNewline) {
  Captured c;
  auto log = Log::open(c.options());
  ASSERT_TRUE(log);
  (*log)->realtime("Real-time throughput: 13.31Gbps");
  (*log)->realtime("Real-time throughput: 800.00Mbps");
  (*log)->end_realtime();  // nothing pending: no-op
  (*log)->info("Test run completed.");
  EXPECT_EQ(contents(c.out),
            "Real-time throughput: 13.31Gbps\nReal-time throughput: 800.00Mbps\n"
            "13:01:00 INFO: Test run completed.\n");
}

TEST(Log, QuietSuppressesOnlyRealtime) {
  Captured c;
  Log::Options o = c.options();
  o.quiet = true;
  auto log = Log::open(o);
  ASSERT_TRUE(log);
  (*log)->realtime("Real-time throughput: 13.31Gbps");
  (*log)->info("Test cycle finished.");
  EXPECT_EQ(contents(c.out), "13:01:00 INFO: Test cycle finished.\n");
}

TEST(Log, LogFileGetsEveryLineButRealtime) {
  Captured c;
  char path[] = "/tmp/xttcp-log-test-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, "old content\n", 12), 12);  // replaced when the log opens
  close(fd);
  {
    Log::Options o = c.options();
    o.log_file = path;
    o.verbose = true;
    auto log = Log::open(o);
    ASSERT_TRUE(log);
    (*log)->raw("---------------------------------------------------------");
    (*log)->info("Network activity progressing...");
    (*log)->realtime("Real-time throughput: 1.00Gbps");
    (*log)->debug("dbg");
    (*log)->error("err");
  }
  EXPECT_EQ(test::read_text(path),
            "---------------------------------------------------------\n"
            "13:01:00 INFO: Network activity progressing...\n"
            "13:01:00 DBG : dbg\n"
            "13:01:00 ERR : err\n");
  unlink(path);
}

TEST(Log, UnopenableLogFileFailsClearly) {
  Captured c;
  Log::Options o = c.options();
  o.log_file = "/nonexistent-xttcp-dir/x.log";
  auto log = Log::open(o);
  ASSERT_FALSE(log);
  EXPECT_EQ(log.error().message,
            "-O: cannot open log file /nonexistent-xttcp-dir/x.log: No such file or directory");
}

// Reads what is available on fd within timeout_ms (the test never waits longer).
std::string drain(int fd, int timeout_ms) {
  std::string text;
  pollfd p{fd, POLLIN, 0};
  char buffer[512];
  while (poll(&p, 1, timeout_ms) == 1) {
    ssize_t n = read(fd, buffer, sizeof buffer);
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    timeout_ms = 100;
  }
  return text;
}

TEST(Log, RealtimeOnATerminalIsOverwritten) {
  int master = posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) GTEST_SKIP() << "no pty";
  int slave = open(ptsname(master), O_RDWR | O_NOCTTY);
  ASSERT_GE(slave, 0);
  termios raw{};
  tcgetattr(slave, &raw);
  cfmakeraw(&raw);  // no "\n" -> "\r\n" translation, so we see the bytes as written
  tcsetattr(slave, TCSANOW, &raw);
  FILE* terminal = fdopen(slave, "w");
  ASSERT_NE(terminal, nullptr);

  const char* term = std::getenv("TERM");
  std::string saved_term = term ? term : "";
  setenv("TERM", "xterm", 1);
  {
    Captured c;
    Log::Options o = c.options();
    o.out = terminal;
    auto log = Log::open(o);
    ASSERT_TRUE(log);
    (*log)->realtime("Real-time throughput: 13.31Gbps");
    (*log)->realtime("Real-time throughput: 13.20Gbps");
    (*log)->info("Test run completed.");
    (*log)->realtime("Real-time throughput: 2.50Gbps");
    (*log)->end_realtime();
    (*log)->end_realtime();  // second one is a no-op
  }
  if (term)
    setenv("TERM", saved_term.c_str(), 1);
  else
    unsetenv("TERM");

  EXPECT_EQ(drain(master, 2000),
            "\x1b[2KReal-time throughput: 13.31Gbps\r"
            "\x1b[2KReal-time throughput: 13.20Gbps\r"
            "\n13:01:00 INFO: Test run completed.\n"
            "\x1b[2KReal-time throughput: 2.50Gbps\r\n");
  std::fclose(terminal);
  close(master);
}

}  // namespace
}  // namespace xttcp
