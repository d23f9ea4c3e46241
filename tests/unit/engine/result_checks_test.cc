// The checks that make a finished test invalid: a receiver that counted far less than the
// sender sent, a receiver whose data stopped before its window did, and a peer's result with
// figures no run can produce.
#include "engine/run/result_checks.hh"

#include <gtest/gtest.h>

namespace xttcp {
namespace {

Result tcp_result(Role role, uint64_t bytes) {
  Result r;
  r.role = role;
  r.spec.role = role;
  r.total_bytes = bytes;
  r.duration_s = 5;
  return r;
}

TEST(CountMismatch, AReceiverThatCountedLessThanHalfIsNamed) {
  const Result sender = tcp_result(Role::sender, 3'000'000);
  auto zero = count_mismatch(sender, tcp_result(Role::receiver, 0));
  ASSERT_TRUE(zero);
  EXPECT_EQ(*zero,
            "the receiver counted 0 bytes, 0.0 % of the 3000000 the sender sent: the "
            "bytes did not reach it");
  EXPECT_TRUE(count_mismatch(sender, tcp_result(Role::receiver, 1'400'000)));
  EXPECT_FALSE(count_mismatch(sender, tcp_result(Role::receiver, 1'500'000)));
  EXPECT_FALSE(count_mismatch(sender, tcp_result(Role::receiver, 2'999'000)));  // in flight
  EXPECT_FALSE(count_mismatch(sender, tcp_result(Role::receiver, 9'000'000)));  // -M: more
}

// 10,000 connections behind a slow receiver hold gigabytes in their buffers at the window's
// edge: less than half counted is no mismatch while the difference fits in them; nothing
// counted still is.
TEST(CountMismatch, WhatTheConnectionsCanHoldIsNoMismatch) {
  Result sender = tcp_result(Role::sender, 2'499'805'184);
  sender.host.sysctls = {{"net.ipv4.tcp_wmem", "4096 16384 4194304"},
                         {"net.ipv4.tcp_rmem", "4096 131072 6291456"}};
  sender.connections_tested = 10'000;
  EXPECT_EQ(in_flight_bound(sender), 10'000ull * (4'194'304 + 6'291'456));
  EXPECT_FALSE(count_mismatch(sender, tcp_result(Role::receiver, 1'095'413'536)));
  EXPECT_TRUE(count_mismatch(sender, tcp_result(Role::receiver, 0)));
  sender.connections_tested = 100;  // 1 GB in flight at most
  EXPECT_TRUE(count_mismatch(sender, tcp_result(Role::receiver, 1'095'413'536)));
}

TEST(CountMismatch, UdpLossAndAnIdleSenderAreNoMismatch) {
  Result udp = tcp_result(Role::sender, 3'000'000);
  udp.spec.workload.protocol = Protocol::udp;
  EXPECT_FALSE(count_mismatch(udp, tcp_result(Role::receiver, 1'000)));  // loss is a figure
  EXPECT_FALSE(count_mismatch(tcp_result(Role::sender, 0), tcp_result(Role::receiver, 0)));
}

// A UDP sender against a receiver that counted nothing (a TCP receiver, a firewall dropping
// UDP) measured nothing: it once printed 42.82 Gbit/s sent and exited 0.
TEST(CountMismatch, AUdpTestTheReceiverCountedNothingOfIsNamed) {
  Result udp = tcp_result(Role::sender, 3'000'000);
  udp.spec.workload.protocol = Protocol::udp;
  auto none = count_mismatch(udp, tcp_result(Role::receiver, 0));
  ASSERT_TRUE(none);
  EXPECT_NE(none->find("the receiver counted none of the 3000000 bytes"), std::string::npos);
}

// A receiver window of `seconds` in 0.5 s intervals, data in those whose index is in `with`.
Result receiver_with(double seconds, std::initializer_list<int> with) {
  Result r = tcp_result(Role::receiver, 1);
  r.duration_s = seconds;
  for (int i = 0; i * 0.5 < seconds; ++i) {
    IntervalSample sample;
    sample.start_s = i * 0.5;
    sample.seconds = 0.5;
    for (int index : with) sample.bytes += index == i ? 1000 : 0;
    r.intervals.push_back(sample);
  }
  return r;
}

TEST(SilentTail, ASenderThatStoppedEarlyIsNamed) {
  auto silent = silent_tail(receiver_with(5, {0, 1}), 0);  // data for 1 s of 5 (-N, sender killed)
  ASSERT_TRUE(silent);
  EXPECT_EQ(*silent,
            "no data arrived in the last 4.00 s of the 5.00 s window: the sender "
            "stopped early (a shorter -t, or it went away)");
}

TEST(SilentTail, DataToTheEndOrSparsePacingIsNoAlarm) {
  EXPECT_FALSE(silent_tail(receiver_with(5, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}), 0));
  EXPECT_FALSE(silent_tail(receiver_with(5, {0, 1, 2, 3, 4, 5, 6, 7}), 0));  // 1 s is a fifth
  EXPECT_FALSE(silent_tail(receiver_with(10, {0, 8}), 0));  // a send every 4 s (-B, big -b)
  EXPECT_FALSE(silent_tail(receiver_with(5, {}), 0));       // nothing at all: the totals say so
  Result warmup = receiver_with(5, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  IntervalSample before;
  before.start_s = -0.5;  // warm-up intervals are not the window
  before.seconds = 0.5;
  warmup.intervals.insert(warmup.intervals.begin(), before);
  EXPECT_FALSE(silent_tail(warmup, 0));
}

// CI: a -N --rr test of 1 s whose window closed 2.01 s late (the host ran neither end), its
// last 2.19 s silent: the host's pause, not a sender that stopped.
TEST(SilentTail, TimeTheHostDidNotRunUsIsNoSenderStopping) {
  Result paused = receiver_with(3.01, {0});
  paused.intervals.resize(2);
  paused.intervals[1].start_s = 0.5;
  paused.intervals[1].seconds = 2.51;  // the last interval: the late wake that closed the window
  paused.intervals[0].seconds = 0.5;
  paused.intervals[0].bytes = 1000;
  EXPECT_TRUE(silent_tail(paused, 0));
  EXPECT_FALSE(silent_tail(paused, 2.01));
  // A sender that stopped is still named when the host paused too, but for less than the tail.
  auto stopped = silent_tail(receiver_with(10, {0, 1}), 2.0);
  ASSERT_TRUE(stopped);
  EXPECT_NE(stopped->find("no data arrived in the last 9.00 s of the 10.00 s window"),
            std::string::npos);
}

TEST(HostPauseNote, ALateClockOfAQuarterSecondAndATwentiethOfTheWindowIsSaid) {
  EXPECT_FALSE(host_pause_note(0, 10));
  EXPECT_FALSE(host_pause_note(0.2, 1));   // under a quarter second
  EXPECT_FALSE(host_pause_note(0.4, 10));  // under a twentieth of the window
  auto note = host_pause_note(2.01, 3.01);
  ASSERT_TRUE(note);
  EXPECT_EQ(*note,
            "this host did not run xttcp for 2.01 s of the 3.01 s window (its clock woke that "
            "late: an overloaded or paused machine); the figures include that time");
}

TEST(RefusedPeerResult, APeersAbsurdFiguresAreRefusedInOneLineNamingTheField) {
  Result receiver = tcp_result(Role::receiver, ~uint64_t{0});  // 2^64 - 1 bytes
  receiver.duration_s = 1e-300;
  auto refused = refused_peer_result(receiver);
  ASSERT_TRUE(refused);
  EXPECT_EQ(*refused,
            "the receiver's result is refused (its figures are not shown): summary.duration_s: "
            "1e-300 s is not a measured time (0, or 1e-09 to 1e+09 s)");
  Result sender = tcp_result(Role::sender, 499'935'375'250'000'000);  // 3,999,483,002 Gbit/s
  sender.duration_s = 1;
  refused = refused_peer_result(sender);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->rfind("the sender's result is refused (its figures are not shown): "
                           "summary.total_bytes: 499935375250000000 bytes in 1 s is 4e+18 bit/s",
                           0),
            0u)
      << *refused;
  // A real result, and a peer that measured nothing (stopped before its window), pass.
  EXPECT_FALSE(refused_peer_result(tcp_result(Role::receiver, 3'000'000)));
  Result nothing;
  EXPECT_FALSE(refused_peer_result(nothing));
  // The null backend's allowance is for files: a peer's bytes crossed a network.
  Result counted = tcp_result(Role::sender, 2'000'000'000'000'000);
  counted.backend = "null";
  EXPECT_TRUE(refused_peer_result(counted));
}

}  // namespace
}  // namespace xttcp
