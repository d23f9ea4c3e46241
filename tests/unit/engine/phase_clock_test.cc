// PhaseClock and StartGate: waits end at their deadline or when cancelled, never neither.
#include "engine/run/phase_clock.hh"

#include <gtest/gtest.h>

#include <thread>

#include "engine/run/start_gate.hh"

namespace xttcp {
namespace {

using namespace std::chrono_literals;

TEST(PhaseClock, WaitReachesItsDeadline) {
  PhaseClock clock;
  const auto deadline = SteadyClock::now() + 20ms;
  EXPECT_TRUE(clock.wait_until(deadline));
  EXPECT_GE(SteadyClock::now(), deadline);
}

TEST(PhaseClock, CancelWakesAWaiterAndKeepsTheFirstReason) {
  PhaseClock clock;
  std::thread canceller([&] {
    std::this_thread::sleep_for(10ms);
    clock.cancel(StopCause::interrupted, "first");
    clock.cancel(StopCause::interrupted, "second");
  });
  EXPECT_FALSE(clock.wait_until(SteadyClock::now() + 60s));
  canceller.join();
  EXPECT_TRUE(clock.cancelled());
  EXPECT_EQ(clock.reason().message, "first");
  EXPECT_FALSE(clock.wait_until(SteadyClock::now() + 60s)) << "stays cancelled until reset";
  clock.reset();
  EXPECT_FALSE(clock.cancelled());
  EXPECT_TRUE(clock.wait_until(SteadyClock::now() + 1ms));
}

TEST(PhaseClock, CancelHooksRun) {
  PhaseClock clock;
  int calls = 0;
  {
    CancelHook hook = clock.add_cancel_hook([&] { ++calls; });
    clock.cancel(StopCause::interrupted, "x");
    EXPECT_EQ(calls, 1);
  }
  clock.cancel(StopCause::interrupted, "y");
  EXPECT_EQ(calls, 1) << "a hook whose handle is gone never runs again";
}

TEST(StartGate, AStartBetweenTestsIsKeptAndOneDuringATestIgnored) {
  StartGate gate;
  gate.open(5);  // arrives before anyone waits (-H, between tests): kept
  gate.open(9);  // a second one while the first is pending: the first wins
  EXPECT_EQ(gate.wait(1s), 5u);
  gate.open(6);  // during the test (-N: more connections of the same sender): ignored
  gate.finished();
  EXPECT_FALSE(gate.wait(1s).has_value());
  gate.open(7);
  EXPECT_EQ(gate.wait(1s), 7u);
}

TEST(StartGate, TheOpeningIsTheOpenersInstantAndCountsNotTheWaitersWakeUp) {
  StartGate gate;
  uint64_t bytes = 42;
  gate.count_with([&bytes] {
    return std::vector<CounterSnapshot>{CounterSnapshot{bytes++, 1, {}}};
  });
  const auto before = SteadyClock::now();
  gate.open(5);
  const auto opened = SteadyClock::now();
  gate.open(9);                       // ignored: a start is pending (its counts are not read)
  std::this_thread::sleep_for(20ms);  // the engine's thread wakes late
  ASSERT_EQ(gate.wait(1s), 5u);
  StartGate::Opening opening = gate.take_opening();
  EXPECT_GE(opening.at, before);
  EXPECT_LE(opening.at, opened);  // taken by the opener, not when the waiter woke
  ASSERT_EQ(opening.counts.size(), 1u);
  EXPECT_EQ(opening.counts[0].bytes, 42u);
  EXPECT_TRUE(gate.take_opening().counts.empty()) << "taken once";
  gate.finished();
  gate.open(7);
  ASSERT_EQ(gate.wait(1s), 7u);
  EXPECT_EQ(gate.take_opening().counts[0].bytes, 43u);  // each opening reads the counters anew
}

TEST(StartGate, WithoutACounterTheOpeningHasNoCounts) {
  StartGate gate;
  gate.open(7);
  ASSERT_EQ(gate.wait(1s), 7u);
  EXPECT_TRUE(gate.take_opening().counts.empty());
}

TEST(StartGate, ReturnsTheCycleOrNothingOnTimeout) {
  StartGate gate;
  std::thread opener([&] { gate.open(7); });
  EXPECT_EQ(gate.wait(10s), 7u);
  opener.join();
  gate.finished();
  EXPECT_FALSE(gate.wait(1s).has_value());
  EXPECT_FALSE(gate.interrupted());
}

TEST(StartGate, InterruptWakesAnEndlessWait) {
  StartGate gate;
  std::thread interrupter([&] {
    std::this_thread::sleep_for(10ms);
    gate.interrupt();
  });
  EXPECT_FALSE(gate.wait(0s).has_value());
  interrupter.join();
  EXPECT_TRUE(gate.interrupted());
}

}  // namespace
}  // namespace xttcp
