// SyncServer and SyncClient end to end over 127.0.0.1, plus xttcp's sender against a scripted
// NTTTCP-for-Linux receiver. Every wait is bounded (kWait); nothing asserts on durations.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/unique_fd.hh"
#include "engine/control/sync_client.hh"
#include "engine/control/sync_codes.hh"
#include "engine/control/sync_server.hh"
#include "engine/control/sync_wire.hh"

namespace xttcp {
namespace {

using namespace std::chrono_literals;
using namespace sync_code;

constexpr auto kWait = 5s;

SocketAddress loopback(uint16_t port) {
  auto address = resolve("127.0.0.1", port, false);
  EXPECT_TRUE(address) << address.error().message;
  return *address;
}

// What the server's hooks saw, in order; tests wait for an entry to appear.
class Recorder {
 public:
  void add(std::string event) {
    std::lock_guard lock(mutex_);
    events_.push_back(std::move(event));
    changed_.notify_all();
  }
  bool wait_for(const std::string& event) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, kWait, [&] {
      return std::find(events_.begin(), events_.end(), event) != events_.end();
    });
  }
  std::vector<std::string> events() {
    std::lock_guard lock(mutex_);
    return events_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::string> events_;
};

SyncServerHooks recording_hooks(Recorder& recorder) {
  SyncServerHooks hooks;
  hooks.native_hello = [&recorder](int, const std::string& sender_hello,
                                   const std::optional<SocketAddress>&) {
    recorder.add("hello " + sender_hello);
    return std::string(R"({"role":"receiver"})");
  };
  hooks.start = [&recorder](uint32_t cycle_s, const std::vector<int>& native_senders) {
    recorder.add(
        "start " + std::to_string(cycle_s) +
        (!native_senders.empty() ? " native " + std::to_string(native_senders.size()) : ""));
  };
  hooks.early_exit = [&recorder] { recorder.add("early_exit"); };
  hooks.peer_result = [&recorder](const std::string& result) { recorder.add("result " + result); };
  hooks.peer_closed = [&recorder](ReceiverSync::Departure departure) {
    recorder.add(departure.left_running_test ? "closed running" : "closed idle");
  };
  hooks.log = [&recorder](std::string_view line, bool is_error) {
    recorder.add((is_error ? "ERR " : "INFO ") + std::string(line));
  };
  hooks.authenticated = [&recorder](int, const sync_auth::Cookie& cookie) {
    recorder.add("authenticated " + std::string(cookie.begin(), cookie.end()));
  };
  hooks.unauthenticated = [&recorder] { recorder.add("unauthenticated"); };
  return hooks;
}

std::unique_ptr<SyncServer> start_server(Recorder& recorder, uint32_t duration_s,
                                         bool multi = false, SyncLimits limits = {},
                                         std::optional<sync_auth::Key> key = std::nullopt) {
  ReceiverSync::Config config;
  config.duration_s = duration_s;
  config.own_cycle_s = duration_s;
  config.multi_clients = multi;
  auto server =
      SyncServer::listen(loopback(0), config, recording_hooks(recorder), limits, std::move(key));
  EXPECT_TRUE(server) << server.error().message;
  if (!server) return nullptr;
  EXPECT_NE((*server)->port(), 0);
  (*server)->start();
  return std::move(*server);
}

SyncClient connect_client(uint16_t port) {
  auto client = SyncClient::connect(loopback(port), std::nullopt, 2000ms);
  if (!client) ADD_FAILURE() << client.error().message;
  return std::move(*client);
}

int32_t exchange(SyncClient& client, int32_t request) {
  auto reply = client.exchange(request, 2000ms);
  EXPECT_TRUE(reply) << reply.error().message;
  return reply ? *reply : -1;
}

sync_auth::Key test_key(char fill) { return {std::vector<uint8_t>(32, fill)}; }

// A plain blocking socket with receive/send timeouts, for byte-level scripts.
UniqueFd raw_connect(uint16_t port) {
  UniqueFd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  timeval timeout{5, 0};
  setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  setsockopt(fd.get(), SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  const SocketAddress address = loopback(port);
  EXPECT_EQ(connect(fd.get(), address.get(), address.length), 0);
  return fd;
}

void write_slowly(int fd, const std::string& bytes) {
  for (char byte : bytes) {
    ASSERT_EQ(send(fd, &byte, 1, MSG_NOSIGNAL), 1);
    std::this_thread::sleep_for(5ms);  // let each byte arrive as its own segment
  }
}

std::string read_bytes(int fd, size_t count) {
  std::string bytes(count, '\0');
  size_t done = 0;
  while (done < count) {
    const ssize_t got = recv(fd, bytes.data() + done, count - done, 0);
    if (got <= 0) break;
    done += static_cast<size_t>(got);
  }
  bytes.resize(done);
  return bytes;
}

std::string int_bytes(int32_t value) {
  std::string bytes;
  sync_wire::append_int(bytes, value);
  return bytes;
}

TEST(SyncEndToEnd, LegacySequence) {
  Recorder recorder;
  auto server = start_server(recorder, 3);
  ASSERT_TRUE(server);
  auto client = connect_client(server->port());
  EXPECT_EQ(exchange(client, kQueryState), kStateNotStarted);
  EXPECT_EQ(exchange(client, 5), 5);
  EXPECT_EQ(exchange(client, kStart), kStart);
  EXPECT_TRUE(recorder.wait_for("start 5"));
  EXPECT_EQ(server->state(), kStateRunning);
  EXPECT_EQ(exchange(client, kEarlyExit), kStateFinished);
  EXPECT_TRUE(recorder.wait_for("early_exit"));
  EXPECT_TRUE(recorder.wait_for("INFO Network activity progressing..."));
  { SyncClient gone = std::move(client); }
  EXPECT_TRUE(recorder.wait_for("closed idle"));
  server->stop();
  server->stop();  // idempotent
}

void native_sequence(bool publish_before_sender_asks) {
  Recorder recorder;
  auto server = start_server(recorder, 10);
  ASSERT_TRUE(server);
  auto client = connect_client(server->port());
  auto native = client.try_native_hello(2000ms);
  ASSERT_TRUE(native) << native.error().message;
  EXPECT_TRUE(*native);
  ASSERT_TRUE(client.send_frame(R"({"role":"sender"})"));
  auto hello = client.read_frame(2000ms);
  ASSERT_TRUE(hello) << hello.error().message;
  EXPECT_EQ(*hello, R"({"role":"receiver"})");
  EXPECT_TRUE(recorder.wait_for(R"(hello {"role":"sender"})"));

  EXPECT_EQ(exchange(client, kQueryState), kStateNotStarted);
  EXPECT_EQ(exchange(client, 12), 12);
  EXPECT_EQ(exchange(client, kStart), kStart);
  EXPECT_TRUE(recorder.wait_for("start 12 native 1"));  // it owes its result
  server->test_finished();                              // the receiver's window ended first
  if (publish_before_sender_asks) server->publish_result(R"({"receiver":"result"})");
  EXPECT_EQ(exchange(client, kEarlyExit), kStateFinished);
  ASSERT_TRUE(client.send_frame(R"({"sender":"result"})"));
  EXPECT_TRUE(recorder.wait_for(R"(result {"sender":"result"})"));
  if (!publish_before_sender_asks) server->publish_result(R"({"receiver":"result"})");
  auto result = client.read_frame(2000ms);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(*result, R"({"receiver":"result"})");
  const auto events = recorder.events();
  EXPECT_EQ(std::count(events.begin(), events.end(), "early_exit"), 0);  // it had finished
  server->stop();
}

TEST(SyncEndToEnd, NativeSequencePublishBeforeSenderAsks) { native_sequence(true); }
TEST(SyncEndToEnd, NativeSequencePublishAfterSenderAsks) { native_sequence(false); }

TEST(SyncEndToEnd, NewTestForgetsThePreviousResult) {
  Recorder recorder;
  auto server = start_server(recorder, 10);
  ASSERT_TRUE(server);
  server->publish_result("stale");
  auto client = connect_client(server->port());
  ASSERT_TRUE(client.try_native_hello(2000ms).value());
  ASSERT_TRUE(client.send_frame("{}"));
  ASSERT_TRUE(client.read_frame(2000ms));
  EXPECT_EQ(exchange(client, kStart), kStart);
  EXPECT_EQ(exchange(client, kEarlyExit), kStateFinished);
  ASSERT_TRUE(client.send_frame("mine"));
  EXPECT_TRUE(recorder.wait_for("result mine"));
  server->publish_result("fresh");
  auto result = client.read_frame(2000ms);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(*result, "fresh");
}

TEST(SyncEndToEnd, ShortReadsAreReassembled) {
  Recorder recorder;
  auto server = start_server(recorder, 10);
  ASSERT_TRUE(server);
  UniqueFd fd = raw_connect(server->port());
  write_slowly(fd.get(), int_bytes(kQueryState));
  EXPECT_EQ(read_bytes(fd.get(), 4), int_bytes(kStateNotStarted));
  write_slowly(fd.get(), int_bytes(kHello));
  EXPECT_EQ(read_bytes(fd.get(), 4), int_bytes(kHelloAck));
  std::string frame;
  sync_wire::append_frame(frame, R"({"split":true})");
  write_slowly(fd.get(), frame);
  std::string expected;
  sync_wire::append_frame(expected, R"({"role":"receiver"})");
  EXPECT_EQ(read_bytes(fd.get(), expected.size()), expected);
  EXPECT_TRUE(recorder.wait_for(R"(hello {"split":true})"));
  // Two messages in one segment are two requests (a native sender's proposal is its cycle).
  const std::string two = int_bytes(kQueryState) + int_bytes(7);
  ASSERT_EQ(send(fd.get(), two.data(), two.size(), MSG_NOSIGNAL), 8);
  EXPECT_EQ(read_bytes(fd.get(), 8), int_bytes(kStateNotStarted) + int_bytes(7));
}

TEST(SyncEndToEnd, ClientThatConnectsAndClosesIsHarmless) {
  Recorder recorder;
  auto server = start_server(recorder, 10);
  ASSERT_TRUE(server);
  { UniqueFd fd = raw_connect(server->port()); }
  EXPECT_TRUE(recorder.wait_for("closed idle"));
  auto client = connect_client(server->port());
  EXPECT_EQ(exchange(client, kQueryState), kStateNotStarted);
}

TEST(SyncEndToEnd, ClosingWhileRunningIsReported) {
  Recorder recorder;
  auto server = start_server(recorder, 10);
  ASSERT_TRUE(server);
  {
    auto client = connect_client(server->port());
    EXPECT_EQ(exchange(client, kStart), kStart);
  }
  EXPECT_TRUE(recorder.wait_for("closed running"));
}

TEST(SyncEndToEnd, OversizedFrameClosesTheConnection) {
  Recorder recorder;
  auto server = start_server(recorder, 10);
  ASSERT_TRUE(server);
  auto client = connect_client(server->port());
  ASSERT_TRUE(client.try_native_hello(2000ms).value());
  ASSERT_TRUE(client.send_int(static_cast<int32_t>(kMaxFrameBytes + 1), 2000ms));
  auto reply = client.read_frame(2000ms);
  ASSERT_FALSE(reply);
  EXPECT_EQ(reply.error().message, "sync: receiver closed the connection");
  EXPECT_TRUE(recorder.wait_for("closed idle"));
}

TEST(SyncEndToEnd, MultiClientOverTheWire) {
  Recorder recorder;
  auto server = start_server(recorder, 10, /*multi=*/true);
  ASSERT_TRUE(server);
  auto first = connect_client(server->port());
  auto second = connect_client(server->port());
  auto last = connect_client(server->port());
  EXPECT_EQ(exchange(first, 20), 10);  // -M: the receiver's -t wins
  EXPECT_EQ(exchange(first, kStart), kPleaseWait);
  EXPECT_EQ(exchange(second, kStart), kPleaseWait);
  EXPECT_EQ(exchange(last, kLastClientStart), kStart);
  for (SyncClient* waiting : {&first, &second}) {
    auto run = waiting->read_int(2000ms);
    ASSERT_TRUE(run) << run.error().message;
    EXPECT_EQ(*run, kStart);
  }
  EXPECT_TRUE(recorder.wait_for("start 10"));
  // No duplicate 'R' for the '-L' sender: its next read sees only the reply to 'X'.
  EXPECT_EQ(exchange(last, kQueryState), kStateRunning);
}

TEST(SyncEndToEnd, ReadTimesOutWhenTheServerNeverReplies) {
  UniqueFd silent(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  SocketAddress address = loopback(0);
  ASSERT_EQ(bind(silent.get(), address.get(), address.length), 0);
  ASSERT_EQ(listen(silent.get(), 4), 0);  // the kernel completes the handshake; nobody answers
  address.length = sizeof address.storage;
  ASSERT_EQ(getsockname(silent.get(), address.get(), &address.length), 0);
  auto client = connect_client(address.port());
  auto reply = client.read_int(200ms);
  ASSERT_FALSE(reply);
  EXPECT_EQ(reply.error().message, "sync: no reply from the receiver within 200 ms");
  auto exchanged = client.exchange(kQueryState, 1000ms);
  ASSERT_FALSE(exchanged);
  EXPECT_EQ(exchanged.error().message, "sync: no reply from the receiver within 1 s");
  auto frame = client.read_frame(100ms);
  EXPECT_FALSE(frame);
}

TEST(SyncEndToEnd, RefusedConnectionSaysSo) {
  uint16_t port;
  {
    UniqueFd probe(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    SocketAddress address = loopback(0);
    ASSERT_EQ(bind(probe.get(), address.get(), address.length), 0);
    address.length = sizeof address.storage;
    ASSERT_EQ(getsockname(probe.get(), address.get(), &address.length), 0);
    port = address.port();
  }  // closed: nothing listens there now
  auto client = SyncClient::connect(loopback(port), std::nullopt, 500ms);
  ASSERT_FALSE(client);
  const std::string message = client.error().message;
  const std::string expected = "sync: receiver 127.0.0.1:" + std::to_string(port) +
                               " refused the connection (is the receiver running?) (";
  EXPECT_EQ(message.rfind(expected, 0), 0u) << message;
  EXPECT_NE(message.find(" tries in 500 ms, --connect-timeout)"), std::string::npos) << message;
}

// A sender started just before its receiver: the refused sync connect is tried again until
// the receiver listens (16 of 20 back-to-back starts failed before).
TEST(SyncEndToEnd, ARefusedConnectIsRetriedUntilTheReceiverListens) {
  Recorder recorder;
  UniqueFd reserved(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  SocketAddress address = loopback(0);
  ASSERT_EQ(bind(reserved.get(), address.get(), address.length), 0);
  address.length = sizeof address.storage;
  ASSERT_EQ(getsockname(reserved.get(), address.get(), &address.length), 0);
  const uint16_t port = address.port();
  std::thread late_receiver([&] {
    std::this_thread::sleep_for(300ms);  // the receiver starts after the sender (the case)
    ASSERT_EQ(listen(reserved.get(), 4), 0);
  });
  auto client = SyncClient::connect(loopback(port), std::nullopt, 5000ms);
  late_receiver.join();
  EXPECT_TRUE(client) << client.error().message;
}

TEST(SyncEndToEnd, SourceAddressIsBound) {
  Recorder recorder;
  auto server = start_server(recorder, 10);
  ASSERT_TRUE(server);
  auto client = SyncClient::connect(loopback(server->port()), loopback(0), 2000ms);
  ASSERT_TRUE(client) << client.error().message;
  SocketAddress local;
  local.length = sizeof local.storage;
  ASSERT_EQ(getsockname(client->fd(), local.get(), &local.length), 0);
  EXPECT_EQ(local.host(), "127.0.0.1");
  EXPECT_EQ(exchange(*client, kQueryState), kStateNotStarted);
}

TEST(SyncEndToEnd, BusyPortIsReported) {
  Recorder recorder;
  auto server = start_server(recorder, 10);
  ASSERT_TRUE(server);
  auto second = SyncServer::listen(loopback(server->port()), {}, {});
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().message, "sync port " + std::to_string(server->port()) +
                                        " on 127.0.0.1: address already in use");
}

TEST(SyncEndToEnd, StopWithoutStart) {
  auto server = SyncServer::listen(loopback(0), {}, {});
  ASSERT_TRUE(server) << server.error().message;
  (*server)->stop();
}

TEST(SyncEndToEnd, OversizedFrameIsRefusedBySender) {
  Recorder recorder;
  auto server = start_server(recorder, 10);
  ASSERT_TRUE(server);
  auto client = connect_client(server->port());
  const std::string huge(kMaxFrameBytes + 1, 'x');
  auto sent = client.send_frame(huge);
  ASSERT_FALSE(sent);
  EXPECT_EQ(sent.error().message, "sync: frame of 16777217 bytes is over the 16 MiB limit");
}

// A scripted NTTTCP-for-Linux 1.4 receiver (-t duration): one connection, its reply rules.
class LegacyNtttcpReceiver {
 public:
  explicit LegacyNtttcpReceiver(int32_t duration) : duration_(duration) {
    listener_.reset(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    SocketAddress address = loopback(0);
    EXPECT_EQ(bind(listener_.get(), address.get(), address.length), 0);
    EXPECT_EQ(listen(listener_.get(), 4), 0);
    address.length = sizeof address.storage;
    EXPECT_EQ(getsockname(listener_.get(), address.get(), &address.length), 0);
    port_ = address.port();
    thread_ = std::thread([this] { serve(); });
  }
  ~LegacyNtttcpReceiver() {
    shutdown(listener_.get(), SHUT_RDWR);  // unblocks accept() if no sender came
    thread_.join();
  }
  uint16_t port() const { return port_; }

 private:
  void serve() {
    UniqueFd peer(accept(listener_.get(), nullptr, nullptr));
    if (!peer.valid()) return;
    timeval timeout{5, 0};
    setsockopt(peer.get(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    int32_t state = kStateNotStarted;
    for (;;) {
      const std::string request = read_bytes(peer.get(), 4);
      if (request.size() != 4) return;
      const int32_t value = sync_wire::decode_int(request.data());
      int32_t answer;
      if (value == kEarlyExit) {
        if (state == kStateRunning) state = kStateFinished;
        answer = state;
      } else if (value == kQueryState) {
        answer = state;
      } else if (value == kStart) {
        state = kStateRunning;
        answer = kStart;
      } else if (value == 0 || duration_ == 0) {
        answer = 0;
      } else {
        answer = duration_ < value ? value : duration_;  // signed compare, as in C
      }
      const std::string reply = int_bytes(answer);
      if (send(peer.get(), reply.data(), reply.size(), MSG_NOSIGNAL) != 4) return;
    }
  }

  int32_t duration_;
  UniqueFd listener_;
  uint16_t port_ = 0;
  std::thread thread_;
};

TEST(SyncEndToEnd, NativeSenderFallsBackWithLegacyNtttcpReceiver) {
  LegacyNtttcpReceiver legacy(10);
  auto client = connect_client(legacy.port());
  auto native = client.try_native_hello(2000ms);
  ASSERT_TRUE(native) << native.error().message;
  EXPECT_FALSE(*native);
  EXPECT_EQ(exchange(client, kQueryState), kStateNotStarted);
  EXPECT_EQ(exchange(client, 15), 15);  // the real proposal overwrites the hello's answer
  EXPECT_EQ(exchange(client, kStart), kStart);
  EXPECT_EQ(exchange(client, kEarlyExit), kStateFinished);
}

TEST(SyncEndToEnd, NativeSenderFallsBackWithContinuousLegacyReceiver) {
  LegacyNtttcpReceiver legacy(0);
  auto client = connect_client(legacy.port());
  auto native = client.try_native_hello(2000ms);
  ASSERT_TRUE(native) << native.error().message;
  EXPECT_FALSE(*native);
  EXPECT_EQ(exchange(client, 15), 0);
}

TEST(SyncAuth, AnNtttcpReceiverCannotAuthenticate) {
  LegacyNtttcpReceiver legacy(10);
  auto client = connect_client(legacy.port());
  auto cookie = client.authenticate(test_key('k'), 2000ms);
  ASSERT_FALSE(cookie);
  EXPECT_NE(cookie.error().message.find("it is not xttcp"), std::string::npos)
      << cookie.error().message;
}

// Hostile peers (issue: "a remote crash, result injection"). Every case ends with a real
// sender's exchange still answered, so the server survived it.

size_t count_events(Recorder& recorder, const std::string& prefix) {
  const auto events = recorder.events();
  return static_cast<size_t>(std::count_if(
      events.begin(), events.end(), [&](const std::string& e) { return e.rfind(prefix, 0) == 0; }));
}

TEST(SyncHostile, OnlyTheTestsSenderHandsInAResultOrStopsTheTest) {
  Recorder recorder;
  auto server = start_server(recorder, 10);
  ASSERT_TRUE(server);
  auto sender = connect_client(server->port());
  ASSERT_TRUE(sender.try_native_hello(2000ms));
  ASSERT_TRUE(sender.send_frame(R"({"role":"sender"})"));
  ASSERT_TRUE(sender.read_frame(2000ms));
  EXPECT_EQ(exchange(sender, kStart), kStart);
  ASSERT_TRUE(recorder.wait_for("start 10 native 1"));

  auto intruder = connect_client(server->port());
  ASSERT_TRUE(intruder.try_native_hello(2000ms));
  ASSERT_TRUE(intruder.send_frame(R"({"role":"sender"})"));
  ASSERT_TRUE(intruder.read_frame(2000ms));
  // Its 'E' neither stops the test nor lets a result in: the frame is read as requests.
  EXPECT_EQ(exchange(intruder, kEarlyExit), kStateRunning);
  ASSERT_TRUE(intruder.send_frame(R"({"total_bytes":999999999999})"));
  EXPECT_EQ(exchange(sender, kQueryState), kStateRunning);

  EXPECT_EQ(exchange(sender, kEarlyExit), kStateFinished);
  ASSERT_TRUE(sender.send_frame(R"({"sender":"result"})"));
  EXPECT_TRUE(recorder.wait_for(R"(result {"sender":"result"})"));
  EXPECT_EQ(count_events(recorder, "result "), 1u);
  EXPECT_EQ(count_events(recorder, "early_exit"), 1u);  // the sender's only
  server->stop();
}

// Until the sender of the last test has handed in its result, taken ours and left, no other
// connection can start a test (receiver -H): nothing takes a finished test's result away.
TEST(SyncHostile, NoTestStartsBeforeTheLastTestsSenderHasLeft) {
  Recorder recorder;
  auto server = start_server(recorder, 10);
  ASSERT_TRUE(server);
  auto first = connect_client(server->port());
  ASSERT_TRUE(first.try_native_hello(2000ms));
  ASSERT_TRUE(first.send_frame(R"({"role":"sender"})"));
  ASSERT_TRUE(first.read_frame(2000ms));
  EXPECT_EQ(exchange(first, kStart), kStart);
  EXPECT_EQ(exchange(first, kEarlyExit), kStateFinished);  // its result may follow ...

  auto second = connect_client(server->port());
  EXPECT_EQ(exchange(second, kQueryState), kStateRunning) << "busy while the first settles";
  EXPECT_EQ(exchange(second, kStart), kEarlyExit) << "... and no new test starts first";
  ASSERT_TRUE(first.send_frame(R"({"sender":"result"})"));
  EXPECT_TRUE(recorder.wait_for(R"(result {"sender":"result"})"));
  server->publish_result("ours");
  auto ours = first.read_frame(2000ms);
  ASSERT_TRUE(ours) << ours.error().message;
  EXPECT_EQ(*ours, "ours");
  { SyncClient gone = std::move(first); }
  ASSERT_TRUE(recorder.wait_for("closed idle"));
  EXPECT_EQ(exchange(second, kQueryState), kStateFinished);
  EXPECT_EQ(exchange(second, kStart), kStart);
  EXPECT_EQ(count_events(recorder, "start 10"), 2u);
  server->stop();
}

// A test belongs to the sender that started it: a stranger's start is refused, and then its
// 'E', its result and its leaving change nothing.
TEST(SyncHostile, AStrangerCannotJoinARunningTest) {
  Recorder recorder;
  auto server = start_server(recorder, 10);
  ASSERT_TRUE(server);
  auto sender = connect_client(server->port());
  EXPECT_EQ(exchange(sender, kStart), kStart);
  ASSERT_TRUE(recorder.wait_for("start 10"));
  auto stranger = connect_client(server->port());
  ASSERT_TRUE(stranger.try_native_hello(2000ms));
  ASSERT_TRUE(stranger.send_frame("{}"));
  ASSERT_TRUE(stranger.read_frame(2000ms));
  EXPECT_EQ(exchange(stranger, kStart), kEarlyExit);
  EXPECT_EQ(exchange(stranger, kEarlyExit), kStateRunning);
  { SyncClient gone = std::move(stranger); }
  ASSERT_TRUE(recorder.wait_for("closed idle"));
  EXPECT_EQ(count_events(recorder, "early_exit"), 0u);
  EXPECT_EQ(count_events(recorder, "closed running"), 0u);
  EXPECT_EQ(count_events(recorder, "ERR sync: 127.0.0.1:"), 1u) << "the refusal names the peer";
  EXPECT_EQ(server->state(), kStateRunning);
  EXPECT_EQ(exchange(sender, kEarlyExit), kStateFinished);
  server->stop();
}

// A sender that stays connected long after its test ended is closed, so the next test can start.
TEST(SyncHostile, ASenderThatStaysAfterItsTestIsClosed) {
  Recorder recorder;
  SyncLimits limits;
  limits.settle_limit = 300ms;
  auto server = start_server(recorder, 10, false, limits);
  ASSERT_TRUE(server);
  UniqueFd holder = raw_connect(server->port());
  const std::string start = int_bytes(kStart);
  ASSERT_EQ(send(holder.get(), start.data(), 4, MSG_NOSIGNAL), 4);
  EXPECT_EQ(read_bytes(holder.get(), 4), start);
  server->test_finished();
  char byte;
  EXPECT_EQ(recv(holder.get(), &byte, 1, 0), 0) << "closed after the settle limit";
  auto next = connect_client(server->port());
  EXPECT_EQ(exchange(next, kStart), kStart);
  server->stop();
}

// One network cannot take every seat with connections that start no test.
TEST(SyncHostile, ConnectionsStillOpeningAreBoundedPerNetwork) {
  Recorder recorder;
  SyncLimits limits;
  limits.max_handshaking_per_network = 2;
  auto server = start_server(recorder, 10, false, limits);
  ASSERT_TRUE(server);
  std::vector<UniqueFd> slow;
  for (int i = 0; i < 2; ++i) slow.push_back(raw_connect(server->port()));
  UniqueFd third = raw_connect(server->port());
  char byte;
  EXPECT_EQ(recv(third.get(), &byte, 1, 0), 0) << "a third from 127.0.0.1 is closed at once";
  // Another address (127.0.0.2, loopback too) is another network: it still gets a seat.
  auto source = resolve("127.0.0.2", 0, false);
  ASSERT_TRUE(source);
  auto other = SyncClient::connect(loopback(server->port()), *source, 2000ms);
  ASSERT_TRUE(other) << other.error().message;
  EXPECT_EQ(exchange(*other, kQueryState), kStateNotStarted);
  server->stop();
}

// Past the listener's budget of tests per period, a busy check says busy and a start is refused.
TEST(SyncHostile, TestsPerPeriodAreBounded) {
  Recorder recorder;
  SyncLimits limits;
  limits.tests_per_period = 2;
  limits.test_period = 1h;
  auto server = start_server(recorder, 10, false, limits);
  ASSERT_TRUE(server);
  for (int test = 0; test < 2; ++test) {
    auto sender = connect_client(server->port());
    EXPECT_EQ(exchange(sender, kQueryState), test == 0 ? kStateNotStarted : kStateFinished);
    EXPECT_EQ(exchange(sender, kStart), kStart);
    EXPECT_EQ(exchange(sender, kEarlyExit), kStateFinished);
    server->test_finished();
  }
  ASSERT_TRUE(recorder.wait_for("closed idle"));
  auto third = connect_client(server->port());
  for (int tries = 0; tries < 50 && exchange(third, kQueryState) != kStateRunning; ++tries)
    std::this_thread::sleep_for(20ms);  // the second sender's close is processed first
  EXPECT_EQ(exchange(third, kQueryState), kStateRunning);
  EXPECT_EQ(exchange(third, kStart), kEarlyExit);
  EXPECT_EQ(count_events(recorder, "start 10"), 2u);
  server->stop();
}

// A test that ran its course does not count against that budget: a sweep's or --repeat's
// back-to-back tests are no flood (before: the 31st test in a minute was told "busy").
TEST(SyncHostile, TestsThatRanTheirCourseDoNotSpendTheBudget) {
  Recorder recorder;
  SyncLimits limits;
  limits.tests_per_period = 2;
  limits.test_period = 1h;
  auto server = start_server(recorder, 10, false, limits);
  ASSERT_TRUE(server);
  for (int test = 0; test < 4; ++test) {
    auto sender = connect_client(server->port());
    for (int tries = 0; tries < 50 && exchange(sender, kQueryState) == kStateRunning; ++tries)
      std::this_thread::sleep_for(20ms);  // the last sender's close is processed first
    EXPECT_EQ(exchange(sender, kStart), kStart) << "test " << test + 1;
    server->test_finished();
    server->test_ran_its_course();
  }
  EXPECT_EQ(count_events(recorder, "start 10"), 4u);
  server->stop();
}

// Lines held back by the budget are said once its period is over, even if no later line comes.
TEST(SyncHostile, HeldBackLinesAreSaidWithoutALaterLine) {
  Recorder recorder;
  SyncLimits limits;
  limits.log_lines_per_period = 1;
  limits.log_period = 300ms;
  auto server = start_server(recorder, 10, false, limits);
  ASSERT_TRUE(server);
  auto sender = connect_client(server->port());
  EXPECT_EQ(exchange(sender, kStart), kStart);  // "Network activity progressing..."
  for (int i = 0; i < 3; ++i) EXPECT_EQ(exchange(sender, kLastClientStart), kEarlyExit);
  EXPECT_TRUE(recorder.wait_for("ERR sync: 3 more line(s) about sync connections were not logged"));
  server->stop();
}

// --auth-key: both ends prove the key before anything else, and agree on the data cookie.
TEST(SyncAuth, BothEndsProveTheKeyAndAgreeOnTheCookie) {
  Recorder recorder;
  auto server = start_server(recorder, 10, false, {}, test_key('k'));
  ASSERT_TRUE(server);
  auto client = connect_client(server->port());
  auto cookie = client.authenticate(test_key('k'), 2000ms);
  ASSERT_TRUE(cookie) << cookie.error().message;
  EXPECT_TRUE(recorder.wait_for("authenticated " + std::string(cookie->begin(), cookie->end())));
  ASSERT_TRUE(client.try_native_hello(2000ms).value());
  ASSERT_TRUE(client.send_frame("{}"));
  ASSERT_TRUE(client.read_frame(2000ms));
  EXPECT_EQ(exchange(client, kStart), kStart);
  EXPECT_EQ(count_events(recorder, "unauthenticated"), 0u);
  server->stop();
}

TEST(SyncAuth, AnotherKeyIsRefusedByTheSender) {
  Recorder recorder;
  auto server = start_server(recorder, 10, false, {}, test_key('k'));
  ASSERT_TRUE(server);
  auto client = connect_client(server->port());
  auto cookie = client.authenticate(test_key('x'), 2000ms);
  ASSERT_FALSE(cookie);
  EXPECT_EQ(cookie.error().message,
            "sync: --auth-key: the receiver's proof is wrong: it holds another key");
  server->stop();
}

// A sender that answers the challenge with a wrong proof (it does not hold the key, whatever it
// learnt from the receiver's proof) is closed at once and counted.
TEST(SyncAuth, AWrongProofIsClosedAndCounted) {
  Recorder recorder;
  auto server = start_server(recorder, 10, false, {}, test_key('k'));
  ASSERT_TRUE(server);
  UniqueFd fd = raw_connect(server->port());
  std::string hello = int_bytes(kAuthHello) + std::string(32, 'n');
  ASSERT_EQ(send(fd.get(), hello.data(), hello.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(hello.size()));
  EXPECT_EQ(read_bytes(fd.get(), 4 + 32 + 32).size(), 68u);
  const std::string proof(32, 'p');
  ASSERT_EQ(send(fd.get(), proof.data(), proof.size(), MSG_NOSIGNAL), 32);
  char byte;
  EXPECT_EQ(recv(fd.get(), &byte, 1, 0), 0);
  EXPECT_TRUE(recorder.wait_for("unauthenticated"));
  EXPECT_EQ(count_events(recorder, "authenticated "), 0u);
  server->stop();
}

// An NTTTCP-compatible sender (its first int is 'X') or an xttcp sender without a key is closed
// at once, counted, with one line saying why.
TEST(SyncAuth, ASenderWithoutTheKeyIsClosedAtOnce) {
  Recorder recorder;
  auto server = start_server(recorder, 10, false, {}, test_key('k'));
  ASSERT_TRUE(server);
  auto legacy = connect_client(server->port());
  EXPECT_FALSE(legacy.exchange(kQueryState, 2000ms));
  auto unkeyed = connect_client(server->port());
  EXPECT_FALSE(unkeyed.try_native_hello(2000ms));
  ASSERT_TRUE(recorder.wait_for("unauthenticated"));
  EXPECT_EQ(count_events(recorder, "unauthenticated"), 2u);
  EXPECT_EQ(count_events(recorder, "ERR sync: closed a connection from 127.0.0.1:"), 2u);
  EXPECT_EQ(count_events(recorder, "start "), 0u);
  server->stop();
}

TEST(SyncAuth, AReceiverWithoutAKeySaysSo) {
  Recorder recorder;
  auto server = start_server(recorder, 10);
  ASSERT_TRUE(server);
  auto client = connect_client(server->port());
  auto cookie = client.authenticate(test_key('k'), 2000ms);
  ASSERT_FALSE(cookie);
  EXPECT_NE(cookie.error().message.find("the receiver has no --auth-key"), std::string::npos);
  server->stop();
}

TEST(SyncHostile, ARequestFloodIsCutOffAndItsLinesAreBudgeted) {
  Recorder recorder;
  SyncLimits limits;
  limits.max_requests = 50;
  limits.log_lines_per_period = 5;
  limits.log_period = 1h;
  auto server = start_server(recorder, 10, false, limits);
  ASSERT_TRUE(server);
  UniqueFd flood = raw_connect(server->port());
  // 1 MB of zeros: 262,144 "continuous mode" proposals; never reads a reply.
  const std::string zeros(1 << 20, '\0');
  size_t sent = 0;
  while (sent < zeros.size()) {
    const ssize_t n = send(flood.get(), zeros.data() + sent, zeros.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;  // closed by the server: expected
    sent += static_cast<size_t>(n);
  }
  ASSERT_TRUE(recorder.wait_for("closed idle"));
  EXPECT_LE(count_events(recorder, "INFO test is negotiated"), 5u);
  EXPECT_LE(count_events(recorder, "INFO ") + count_events(recorder, "ERR "), 5u);
  auto sender = connect_client(server->port());
  EXPECT_EQ(exchange(sender, kQueryState), kStateNotStarted);
  server->stop();
}

TEST(SyncHostile, AnOversizedHelloClosesTheConnection) {
  Recorder recorder;
  auto server = start_server(recorder, 10);
  ASSERT_TRUE(server);
  UniqueFd fd = raw_connect(server->port());
  std::string bytes;
  sync_wire::append_int(bytes, kHello);
  sync_wire::append_int(bytes, static_cast<int32_t>(kMaxHelloBytes + 1));
  ASSERT_EQ(send(fd.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(bytes.size()));
  EXPECT_TRUE(recorder.wait_for("closed idle"));
  EXPECT_EQ(count_events(recorder, "hello "), 0u);
  auto sender = connect_client(server->port());
  EXPECT_EQ(exchange(sender, kQueryState), kStateNotStarted);
  server->stop();
}

TEST(SyncHostile, ConnectionsBeyondTheLimitAreClosedAndSlowOnesExpire) {
  Recorder recorder;
  SyncLimits limits;
  limits.max_connections = 3;
  limits.handshake_limit = 300ms;
  auto server = start_server(recorder, 10, false, limits);
  ASSERT_TRUE(server);
  std::vector<UniqueFd> idle;
  for (int i = 0; i < 3; ++i) idle.push_back(raw_connect(server->port()));
  UniqueFd extra = raw_connect(server->port());
  char byte;
  EXPECT_EQ(recv(extra.get(), &byte, 1, 0), 0) << "the fourth connection is closed at once";
  for (UniqueFd& fd : idle)
    EXPECT_EQ(recv(fd.get(), &byte, 1, 0), 0) << "a connection that starts no test in time expires";
  auto sender = connect_client(server->port());
  EXPECT_EQ(exchange(sender, kQueryState), kStateNotStarted);
  server->stop();
}

}  // namespace
}  // namespace xttcp
