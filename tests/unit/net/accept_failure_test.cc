// A data-port listener out of descriptors rests and comes back; one line each way.
#include <gtest/gtest.h>

#include "io_backends/common/accept_failure.hh"

namespace xttcp {
namespace {

using Clock = ListenerRest::Clock;
using std::chrono::milliseconds;

TEST(ListenerRest, AShortageRestsTheListenerAndSaysSoOnceThenOnceMoreWhenItEnds) {
  ListenerRest rest;
  const Clock::time_point t0{};
  std::string line;
  ASSERT_TRUE(rest.on_failure(EMFILE, 5001, t0, line));
  EXPECT_NE(line.find("accept on port 5001: Too many open files"), std::string::npos) << line;
  EXPECT_NE(line.find("250 ms"), std::string::npos) << line;
  EXPECT_TRUE(rest.resting());
  EXPECT_FALSE(rest.due(t0 + milliseconds(249)));
  EXPECT_TRUE(rest.due(t0 + milliseconds(250)));
  rest.resume();
  EXPECT_FALSE(rest.resting());
  // Still short: rests again, silently.
  ASSERT_TRUE(rest.on_failure(ENFILE, 5001, t0 + milliseconds(250), line));
  EXPECT_TRUE(line.empty());
  EXPECT_EQ(rest.resume_at(), t0 + milliseconds(500));
  rest.resume();
  const std::string back = rest.on_success(5001, t0 + milliseconds(500));
  EXPECT_NE(back.find("port 5001 works again after 0.5 s (3 tries)"), std::string::npos) << back;
  EXPECT_TRUE(rest.on_success(5001, t0 + milliseconds(600)).empty()) << "said once";
  // A later shortage is a new one: said again.
  ASSERT_TRUE(rest.on_failure(ENOMEM, 5001, t0 + milliseconds(900), line));
  EXPECT_FALSE(line.empty());
}

TEST(ListenerRest, OtherFailuresAreNoShortage) {
  ListenerRest rest;
  std::string line = "x";
  EXPECT_FALSE(rest.on_failure(EPERM, 5001, Clock::time_point{}, line));
  EXPECT_TRUE(line.empty());
  EXPECT_FALSE(rest.resting());
  EXPECT_TRUE(rest.on_success(5001, Clock::time_point{}).empty());
}

// The iocp backend names its shortages itself (WSAEMFILE, WSAENOBUFS) and waits on its
// completion port no longer than the rest: the same rest, the same lines.
TEST(ListenerRest, AShortageNamedByTheCallerRestsAndBoundsTheWait) {
  ListenerRest rest;
  const Clock::time_point t0{};
  const milliseconds longest(100);
  EXPECT_EQ(rest.wait_at_most(t0, longest), longest);
  std::string line;
  rest.on_shortage("accept on port 5001: WSAEMFILE (10024)", t0, line);
  EXPECT_NE(line.find("accept on port 5001: WSAEMFILE (10024); not accepting for 250 ms"),
            std::string::npos)
      << line;
  EXPECT_TRUE(rest.resting());
  EXPECT_EQ(rest.wait_at_most(t0, longest), longest);
  EXPECT_EQ(rest.wait_at_most(t0 + milliseconds(200), longest), milliseconds(50));
  EXPECT_EQ(rest.wait_at_most(t0 + milliseconds(250), longest), milliseconds(0));
  ASSERT_TRUE(rest.due(t0 + milliseconds(250)));
  rest.resume();
  rest.on_shortage("accept on port 5001: WSAENOBUFS (10055)", t0 + milliseconds(250), line);
  EXPECT_TRUE(line.empty()) << "the same shortage: said once";
  rest.resume();
  EXPECT_NE(rest.on_success(5001, t0 + milliseconds(500)).find("works again"), std::string::npos);
}

}  // namespace
}  // namespace xttcp
