// The sender pacer (io_backends/common/pacer.hh): a TCP sender may run ahead of the schedule by
// its burst before it sleeps, and never further. Both checks are bounds the schedule itself
// sets (a sleep lasts until the due time), not timings of this machine.
#include "io_backends/common/pacer.hh"

#include <gtest/gtest.h>

#include <chrono>

namespace xttcp {
namespace {

using Clock = std::chrono::steady_clock;

TEST(Pacer, WithinItsBurstASenderWritesOnWithoutSleeping) {
  // 1 byte/s, a burst of an hour: 60 bytes are due in a minute, well inside the burst, so the
  // call returns at once; a pacer that slept would return after the due minute.
  Pacer pacer(1.0, 3'600'000'000'000);
  const auto started = Clock::now();
  pacer.start();
  pacer.after_write(60);
  EXPECT_LT(Clock::now() - started, std::chrono::seconds(60));
}

TEST(Pacer, NoSenderRunsAheadOfTheScheduleByMoreThanItsBurst) {
  // 1 MB/s, 20 writes of 1,000 bytes: due 20 ms after the start. With a 2 ms burst the last
  // write cannot return before 18 ms; with none, not before 20 ms.
  for (const int64_t burst_ns : {int64_t{0}, int64_t{2'000'000}}) {
    Pacer pacer(1e6, burst_ns);
    const auto started = Clock::now();
    pacer.start();
    for (int i = 0; i < 20; ++i) pacer.after_write(1000);
    EXPECT_GE(Clock::now() - started, std::chrono::nanoseconds(20'000'000 - burst_ns))
        << "burst " << burst_ns << " ns";
  }
}

}  // namespace
}  // namespace xttcp
