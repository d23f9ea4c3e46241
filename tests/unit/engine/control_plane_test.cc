// The control planes against each other over loopback: each sender plane with the receiver
// plane of its protocol (NTTTCP sync with xttcp's native results, NTttcp for Windows' tokens,
// none), and each stop cause a control plane decides. Every wait is bounded; nothing asserts on
// durations.
#include <gtest/gtest.h>

#include <cstdio>
#include <future>
#include <memory>
#include <thread>

#include "engine/net/address.hh"
#include "engine/net/socket_io.hh"
#include "engine/net/socket_setup.hh"
#include "engine/report/log.hh"
#include "engine/run/control_plane/receiver_control.hh"
#include "engine/run/control_plane/sender_control.hh"

namespace xttcp {
namespace {

using namespace std::chrono_literals;

// A base port whose sync port (base - 1), data port and token port (base + 1000) were free.
uint16_t free_base_port() {
  for (int attempt = 0; attempt < 50; ++attempt) {
    auto any = resolve("127.0.0.1", 0, false);
    auto listener = listen_tcp(*any, 1);
    if (!listener) continue;
    auto bound = local_address_of(listener->get());
    const uint16_t port = bound->port();
    if (port < 2 || port > 64000) continue;
    const uint16_t base = static_cast<uint16_t>(port + 1);  // the sync port is the one we had
    bool free = true;
    for (uint16_t candidate : {base, static_cast<uint16_t>(base + 1000)}) {
      auto address = resolve("127.0.0.1", candidate, false);
      free = free && listen_tcp(*address, 1).has_value();
    }
    if (free) return base;
  }
  ADD_FAILURE() << "no free port block";
  return 0;
}

// Waits (bounded) until `done` holds.
template <class Predicate>
bool eventually(Predicate done) {
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

// One side's spec, plan and addresses, with a log that writes nowhere visible.
struct Side {
  std::unique_ptr<FILE, int (*)(FILE*)> sink{std::tmpfile(), &std::fclose};
  TestSpec spec;
  Plan plan;
  std::vector<SocketAddress> hosts;
  std::optional<SocketAddress> source;
  std::unique_ptr<Log> log;
  StartGate gate;
  PhaseClock clock;
  std::atomic<bool> interrupted{false};

  Side(Role role, Dialect dialect, uint16_t base, uint32_t duration_s) {
    spec.role = role;
    spec.dialect = dialect;
    spec.layout.address = "127.0.0.1";
    spec.layout.base_port = base;
    spec.layout.ports = 1;
    spec.layout.threads_per_port = 1;
    spec.workload.duration_s = duration_s;
    spec.control.connect_timeout_s = 5;
    plan = *make_plan(spec, {0});
    hosts = {*resolve("127.0.0.1", 0, false)};
    Log::Options options;
    options.out = sink.get();
    options.err = sink.get();
    log = std::move(*Log::open(options));
  }
  std::unique_ptr<ReceiverControl> receiver() {
    return make_receiver_control({spec, plan, hosts, gate, clock, *log});
  }
  std::unique_ptr<SenderControl> sender() {
    return make_sender_control({spec, plan, hosts, source, interrupted, *log});
  }
};

// A receiver and a sender plane of NTTTCP sync on one free port block; start() brings both up
// and starts a test (the receiver's gate opened).
struct SyncPair {
  uint16_t base = free_base_port();
  Side rx;
  Side tx;
  std::unique_ptr<ReceiverControl> receiver;
  std::unique_ptr<SenderControl> sender;

  SyncPair(uint32_t receiver_s, uint32_t sender_s)
      : rx(Role::receiver, Dialect::linux, base, receiver_s),
        tx(Role::sender, Dialect::linux, base, sender_s) {}
  void start() {
    receiver = rx.receiver();
    ASSERT_TRUE(receiver->open());
    sender = tx.sender();
    ASSERT_TRUE(sender->agree());
    ASSERT_TRUE(sender->start());
    ASSERT_TRUE(rx.gate.wait(5s));
  }
};

Result result_of(Role role, uint64_t bytes) {
  Result result;
  result.role = role;
  result.spec.role = role;
  result.total_bytes = bytes;
  result.duration_s = 1.0;
  return result;
}

TEST(ControlPlane, SyncPlanesAgreeStartStopAndExchangeResults) {
  const uint16_t base = free_base_port();
  Side rx(Role::receiver, Dialect::linux, base, 3);
  Side tx(Role::sender, Dialect::linux, base, 2);
  auto receiver = rx.receiver();
  ASSERT_TRUE(receiver->open());
  EXPECT_EQ(receiver->threads(), 1u);
  EXPECT_TRUE(receiver->exchanges_results());
  auto sender = tx.sender();
  auto agreement = sender->agree();
  ASSERT_TRUE(agreement) << agreement.error().message;
  // Two xttcp peers: the sender's -t 2 is the test's, not the receiver's longer -t 3 (which
  // NTTTCP's rule would take); the receiver runs the sender's phases.
  EXPECT_EQ(agreement->cycle_s, 2u);
  EXPECT_TRUE(agreement->native);

  ASSERT_TRUE(sender->start());
  EXPECT_EQ(rx.gate.wait(5s), std::optional<uint32_t>(2));
  ASSERT_TRUE(receiver->test_phases());
  EXPECT_EQ(receiver->test_phases()->duration_s, 2u);
  const auto start = SteadyClock::now();
  receiver->test_started(start, start + 1h);
  ASSERT_TRUE(sender->stopped(0.5, false));  // 'E': the receiver's test stops
  EXPECT_EQ(rx.clock.cause(), StopCause::sender_stopped);
  receiver->test_finished();
  receiver->publish(result_of(Role::receiver, 1111));
  auto peer = sender->exchange_results(result_of(Role::sender, 2222));
  ASSERT_TRUE(peer) << peer.error().message;
  ASSERT_TRUE(*peer);
  EXPECT_EQ((*peer)->total_bytes, 1111u);
  const std::vector<Result> senders = receiver->sender_results(5s);
  ASSERT_EQ(senders.size(), 1u);
  EXPECT_EQ(senders[0].total_bytes, 2222u);
  receiver->stop();
}

TEST(ControlPlane, AMismatchedWorkloadIsRefusedAtTheHelloNamingBothSettings) {
  const uint16_t base = free_base_port();
  Side rx(Role::receiver, Dialect::linux, base, 3);
  Side tx(Role::sender, Dialect::linux, base, 3);
  tx.spec.rr.on = true;  // --rr against a plain receiver
  tx.plan = *make_plan(tx.spec, {0});
  auto receiver = rx.receiver();
  ASSERT_TRUE(receiver->open());
  auto agreement = tx.sender()->agree();
  ASSERT_FALSE(agreement);
  EXPECT_NE(agreement.error().message.find(
                "the receiver refused this test: the sender runs request/response (--rr) and "
                "the receiver does not"),
            std::string::npos)
      << agreement.error().message;
  EXPECT_FALSE(rx.gate.wait(1s));  // no test started
  receiver->stop();
}

TEST(ControlPlane, WithMultiClientsTheReceiversCycleWinsAndADifferentOneIsRefused) {
  const uint16_t base = free_base_port();
  Side rx(Role::receiver, Dialect::linux, base, 60);
  rx.spec.control.multi_clients = true;
  Side tx(Role::sender, Dialect::linux, base, 3);
  auto receiver = rx.receiver();
  ASSERT_TRUE(receiver->open());
  auto agreement = tx.sender()->agree();
  ASSERT_FALSE(agreement);
  EXPECT_NE(agreement.error().message.find("give this sender -t 60, or the receiver -t 3"),
            std::string::npos)
      << agreement.error().message;
  receiver->stop();
}

TEST(ControlPlane, ASenderLeavingMidWindowStopsTheTestAsSenderLeft) {
  SyncPair pair(60, 60);
  ASSERT_NO_FATAL_FAILURE(pair.start());
  pair.receiver->test_started(SteadyClock::now(), SteadyClock::now() + 1h);
  pair.sender.reset();  // closes its sync connection
  EXPECT_TRUE(eventually([&] { return pair.rx.clock.cancelled(); }));
  EXPECT_EQ(pair.rx.clock.cause(), StopCause::sender_left);
  pair.receiver->stop();
}

TEST(ControlPlane, EverySenderLeavingInTheCoolDownEndsItAsSendersGone) {
  SyncPair pair(1, 1);
  ASSERT_NO_FATAL_FAILURE(pair.start());
  const auto now = SteadyClock::now();
  pair.receiver->test_started(now - 2s, now - 1s);  // the window is over: cooling down
  pair.sender.reset();
  EXPECT_TRUE(eventually([&] { return pair.rx.clock.finished(); }));
  EXPECT_FALSE(pair.rx.clock.cancelled());
  EXPECT_EQ(pair.rx.clock.cause(), StopCause::senders_gone);
  pair.receiver->stop();
}

TEST(ControlPlane, TheSenderSeesTheReceiverGoAsReceiverLeft) {
  SyncPair pair(60, 60);
  ASSERT_NO_FATAL_FAILURE(pair.start());
  EXPECT_FALSE(pair.sender->receiver_gone());
  pair.receiver->stop();
  pair.receiver.reset();
  std::optional<StopReason> gone;
  EXPECT_TRUE(eventually([&] { return (gone = pair.sender->receiver_gone()).has_value(); }));
  ASSERT_TRUE(gone);
  EXPECT_EQ(gone->cause, StopCause::receiver_left);
  EXPECT_EQ(gone->message, "the receiver closed the sync connection");
  EXPECT_TRUE(pair.sender->stopped(0.5, true));  // a lost receiver is told nothing
  auto peer = pair.sender->exchange_results(result_of(Role::sender, 1));
  ASSERT_TRUE(peer);
  EXPECT_FALSE(*peer);
}

TEST(ControlPlane, WindowsTokensStartTheReceiver) {
  const uint16_t base = free_base_port();
  Side rx(Role::receiver, Dialect::windows, base, 5);
  Side tx(Role::sender, Dialect::windows, base, 5);
  auto receiver = rx.receiver();
  ASSERT_TRUE(receiver->open());
  EXPECT_FALSE(receiver->accept_hook());  // tokens, not connections, start the test
  // A thread's token counts only from the host of its data connection, which the worker that
  // accepted it reports (docs/hostile-peers.md): here, the sender's from 127.0.0.1.
  auto data_connection = receiver->data_connection_hook();
  ASSERT_TRUE(data_connection);
  data_connection(*resolve("127.0.0.1", 40000, false), base);
  auto sender = tx.sender();
  auto agreement = sender->agree();
  ASSERT_TRUE(agreement) << agreement.error().message;
  EXPECT_EQ(agreement->cycle_s, 5u);
  EXPECT_FALSE(agreement->native);
  ASSERT_TRUE(sender->start());
  EXPECT_EQ(rx.gate.wait(5s), std::optional<uint32_t>(5));
  EXPECT_FALSE(receiver->failed());
  receiver->stop();
}

// A token from a host with no data connection on its thread's port is not the sender's: the
// test does not start, the receiver does not fail, and the port listens on.
TEST(ControlPlane, AWindowsTokenWithoutADataConnectionStartsNothing) {
  const uint16_t base = free_base_port();
  Side rx(Role::receiver, Dialect::windows, base, 5);
  auto receiver = rx.receiver();
  ASSERT_TRUE(receiver->open());
  auto token = connect_tcp(*resolve("127.0.0.1", static_cast<uint16_t>(base + 1000), false), {},
                           std::chrono::milliseconds(2000));
  ASSERT_TRUE(token) << token.error().message;
  const char x = 'X';
  ASSERT_EQ(send_some(token->get(), &x, 1).bytes, 1);
  EXPECT_FALSE(rx.gate.wait(1s)) << "a stranger's token started the test";
  EXPECT_FALSE(receiver->failed());
  receiver->stop();
}

// A receiver closes a token connection it does not take as the thread's sender's (one of
// several at once, say): the xttcp sender connects again and exchanges its token then.
TEST(ControlPlane, AWindowsSenderConnectsAgainWhenItsTokenConnectionIsClosed) {
  const uint16_t base = free_base_port();
  auto listener = listen_tcp(*resolve("127.0.0.1", static_cast<uint16_t>(base + 1000), false), 1);
  ASSERT_TRUE(listener) << listener.error().message;
  // The receiver's side: the first connection closed unanswered, the second answered.
  auto receiver = std::async(std::launch::async, [&]() -> bool {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    for (int i = 0; i < 2; ++i) {
      std::optional<UniqueSocket> accepted;
      while (!accepted) {
        if (wait_socket(listener->get(), WaitFor::read, deadline) <= 0) return false;
        auto got = accept_connection(listener->get(), nullptr);
        if (!got) return false;
        accepted = std::move(*got);
      }
      if (i == 0) continue;  // closed here, before the token
      char byte = 0;
      if (wait_socket(accepted->get(), WaitFor::read, deadline) <= 0) return false;
      if (receive_some(accepted->get(), &byte, 1).bytes != 1 || byte != 'X') return false;
      const char x = 'X';
      return send_some(accepted->get(), &x, 1).bytes == 1;
    }
    return false;
  });
  Side tx(Role::sender, Dialect::windows, base, 5);
  auto sender = tx.sender();
  ASSERT_TRUE(sender->agree());
  Status started = sender->start();
  EXPECT_TRUE(started) << started.error().message;
  EXPECT_TRUE(receiver.get());
}

TEST(ControlPlane, WindowsNoSyncStartsOnEveryThreadsConnection) {
  Side rx(Role::receiver, Dialect::windows, 5001, 5);
  rx.spec.control.no_sync = true;
  rx.spec.layout.ports = 2;
  rx.plan = *make_plan(rx.spec, {0});
  auto receiver = rx.receiver();
  ASSERT_TRUE(receiver->open());
  auto accepted = receiver->accept_hook();
  ASSERT_TRUE(accepted);
  accepted();
  EXPECT_FALSE(rx.gate.wait(1s)) << "one of two threads connected: not yet";
  accepted();
  EXPECT_EQ(rx.gate.wait(1s), std::optional<uint32_t>(5));
  const auto first_data = receiver->test_started(SteadyClock::now(), std::nullopt);
  EXPECT_TRUE(first_data) << "-ns: the first thread's data is where a count-mode window starts";
  receiver->stop();
}

TEST(ControlPlane, NoSyncPlanesNeedNoPeer) {
  Side rx(Role::receiver, Dialect::linux, 5001, 7);
  rx.spec.control.no_sync = true;
  auto receiver = rx.receiver();
  ASSERT_TRUE(receiver->open());
  EXPECT_EQ(receiver->threads(), 0u);
  EXPECT_FALSE(receiver->exchanges_results());
  auto accepted = receiver->accept_hook();
  ASSERT_TRUE(accepted);
  accepted();  // -N: the first connection starts the test
  EXPECT_EQ(rx.gate.wait(1s), std::optional<uint32_t>(7));

  Side tx(Role::sender, Dialect::linux, 5001, 7);
  tx.spec.control.no_sync = true;
  auto sender = tx.sender();
  auto agreement = sender->agree();
  ASSERT_TRUE(agreement);
  EXPECT_EQ(agreement->cycle_s, 7u);
  EXPECT_TRUE(sender->start());
  EXPECT_FALSE(sender->receiver_gone());
  EXPECT_TRUE(sender->stopped(1.0, false));
}

}  // namespace
}  // namespace xttcp
