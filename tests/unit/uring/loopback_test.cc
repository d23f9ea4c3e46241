// A UringSender and a UringReceiver on 127.0.0.1, driven through the DataWorker interface as the
// engine drives them: each on its own thread (open and run on the same one), ~200 ms of sending,
// then the sender stops and closes, the receiver drains to EOF and stops. Byte counts must agree
// exactly in every mode; nothing is asserted about speed. Every wait has a timeout.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <chrono>
#include <future>
#include <memory>
#include <numeric>
#include <thread>

#include "base/unique_fd.hh"
#include "engine/net/address.hh"
#include "io_backends/uring/probe.hh"
#include "io_backends/uring/uring_backend.hh"
#include "tests/unit/uring/machine.hh"

namespace xttcp {
namespace {

using namespace std::chrono_literals;

constexpr uint32_t connections = 3;

using test::machine;

// A port that was free a moment ago on 127.0.0.1.
uint16_t free_port() {
  UniqueFd fd(socket(AF_INET, SOCK_STREAM, 0));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) return 0;
  socklen_t length = sizeof address;
  getsockname(fd.get(), reinterpret_cast<sockaddr*>(&address), &length);
  return ntohs(address.sin_port);
}

uint64_t total(const FlowCounter* counters, uint32_t n) {
  uint64_t sum = 0;
  for (uint32_t i = 0; i < n; ++i) sum += read(counters[i]).bytes;
  return sum;
}

struct Options {
  const char* disable = "";  // XTTCP_URING_DISABLE words applied to the machine's probe
  ZeroCopy zerocopy = ZeroCopy::off;
  bool skip_rx_copy = false;
  bool sqpoll = false;
  uint64_t rate_limit_bps = 0;
  bool count_reads = false;  // io.count_reads, with a connection watch that has tallies
};

struct Outcome {
  uint64_t sent = 0, received = 0;
  WorkerReport sender, receiver;
  uint32_t accepts = 0;
  uint32_t data_connections = 0;  // on_data_connection calls naming 127.0.0.1 and the port
};

Outcome run_pair(const Options& options) {
  Outcome out;
  auto backend = make_uring_backend(apply_uring_disable_list(machine(), options.disable));
  const uint16_t port = free_port();

  TestSpec receiver_spec;
  receiver_spec.role = Role::receiver;
  receiver_spec.workload.recv_buffer = 16 * 1024;
  receiver_spec.io.skip_rx_copy = options.skip_rx_copy;
  // The rate-following mark says what it did in a note; these tests look at other notes
  // (e2e-tcp-tuning checks the mark).
  receiver_spec.io.receive_mark = false;
  receiver_spec.uring.sqpoll = options.sqpoll;
  receiver_spec.io.count_reads = options.count_reads;
  TestSpec sender_spec;
  sender_spec.role = Role::sender;
  sender_spec.layout.address = "127.0.0.1";
  sender_spec.layout.ports = 1;
  sender_spec.layout.threads_per_port = 1;
  sender_spec.layout.conns_per_thread = connections;
  sender_spec.workload.send_buffer = 48 * 1024;
  sender_spec.io.zerocopy = options.zerocopy;
  sender_spec.uring.sqpoll = options.sqpoll;
  sender_spec.workload.rate_limit_bps = options.rate_limit_bps;

  WorkerPlan receiver_plan, sender_plan;
  receiver_plan.flows.push_back(FlowPlan{0, 0, port, 0});
  for (uint32_t i = 0; i < connections; ++i) sender_plan.flows.push_back(FlowPlan{i, 0, port, 0});
  auto receiver_counters = std::make_unique<FlowCounter[]>(1);
  auto sender_counters = std::make_unique<FlowCounter[]>(connections);
  std::atomic<uint32_t> accepts{0};

  WorkerContext receiver_context;
  receiver_context.spec = &receiver_spec;
  receiver_context.plan = &receiver_plan;
  receiver_context.local = *resolve("127.0.0.1", 0, false);
  receiver_context.counters = receiver_counters.get();
  receiver_context.on_accept = [&accepts] { ++accepts; };
  std::atomic<uint32_t> data_connections{0};
  receiver_context.on_data_connection = [&data_connections, port](const SocketAddress& peer,
                                                                  uint16_t local) {
    if (local == port && peer.host() == "127.0.0.1") ++data_connections;
  };
  ConnectionWatch watch(limits::watched_connections, true);
  if (options.count_reads) receiver_context.connection_watch = &watch;
  WorkerContext sender_context;
  sender_context.spec = &sender_spec;
  sender_context.plan = &sender_plan;
  sender_context.local = *resolve("", 0, false);
  sender_context.remote = *resolve("127.0.0.1", 0, false);
  sender_context.counters = sender_counters.get();

  auto receiver = backend->make_worker(receiver_context);
  auto sender = backend->make_worker(sender_context);
  EXPECT_TRUE(receiver) << (receiver ? "" : receiver.error().message);
  EXPECT_TRUE(sender) << (sender ? "" : sender.error().message);
  if (!receiver || !sender) return out;

  std::atomic<bool> stop_receiver{false}, stop_sender{false};
  std::promise<bool> listening;
  auto receiver_done = std::async(std::launch::async, [&] {
    Status opened = (*receiver)->open();
    EXPECT_TRUE(opened) << (opened ? "" : opened.error().message);
    listening.set_value(static_cast<bool>(opened));
    if (opened) (*receiver)->run(stop_receiver);
    return (*receiver)->finish();
  });
  const bool receiver_up = listening.get_future().get();
  auto sender_done = std::async(std::launch::async, [&] {
    Status opened = (*sender)->open();
    EXPECT_TRUE(opened) << (opened ? "" : opened.error().message);
    if (opened) (*sender)->run(stop_sender);
    WorkerReport report = (*sender)->finish();
    sender->reset();  // closes the sockets: the receiver sees EOF
    return report;
  });
  if (receiver_up) std::this_thread::sleep_for(200ms);
  stop_sender = true;
  if (sender_done.wait_for(10s) != std::future_status::ready) {
    ADD_FAILURE() << "sender did not stop within 10 s";
    std::abort();  // a hung worker thread cannot be joined
  }
  out.sender = sender_done.get();
  out.sent = total(sender_counters.get(), connections);

  // The receiver drains what is still in the socket buffers (bounded wait, no speed asserted).
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (total(receiver_counters.get(), 1) < out.sent &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(5ms);
  stop_receiver = true;
  if (receiver_done.wait_for(10s) != std::future_status::ready) {
    ADD_FAILURE() << "receiver did not stop within 10 s";
    std::abort();
  }
  out.receiver = receiver_done.get();
  out.received = total(receiver_counters.get(), 1);
  out.accepts = accepts.load();
  out.data_connections = data_connections.load();
  return out;
}

void expect_consistent(const Outcome& out) {
  EXPECT_GT(out.sent, 0u);
  EXPECT_EQ(out.received, out.sent);
  EXPECT_EQ(out.sender.connections, connections);
  EXPECT_EQ(out.receiver.connections, connections);
  EXPECT_EQ(out.accepts, connections);
  EXPECT_EQ(out.data_connections, connections);  // the Windows dialect's tokens need them
  EXPECT_EQ(out.sender.errors, 0u) << out.sender.first_error;
  EXPECT_EQ(out.receiver.errors, 0u) << out.receiver.first_error;
  ASSERT_EQ(out.sender.connection_stats.size(), connections);
  ASSERT_EQ(out.receiver.connection_stats.size(), connections);
  uint64_t per_connection = 0;
  for (const ConnectionStats& c : out.receiver.connection_stats) per_connection += c.bytes;
  EXPECT_EQ(per_connection, out.received);
  for (const ConnectionStats& c : out.sender.connection_stats) {
    EXPECT_GT(c.bytes, 0u);
    EXPECT_EQ(c.remote.rfind("127.0.0.1:", 0), 0u) << c.remote;
  }
}

class UringLoopback : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!machine().ring) GTEST_SKIP() << "io_uring unavailable: " << machine().ring_reason;
  }
};

TEST_F(UringLoopback, MultishotReceiveAndPlainSend) {
  const Outcome out = run_pair({});
  expect_consistent(out);
  EXPECT_TRUE(out.receiver.notes.empty());
}

TEST_F(UringLoopback, SendAndReceiveBundles) {
  if (!machine().bundle) GTEST_SKIP() << machine().bundle_reason;
  const Outcome out = run_pair({});
  expect_consistent(out);
  EXPECT_TRUE(out.sender.notes.empty());  // no "send bundles unavailable"
}

// A kernel without bundles (simulated): one write per send, said once per worker, same counts.
TEST_F(UringLoopback, WithoutBundlesOneWritePerSend) {
  const Outcome out = run_pair({.disable = "bundle"});
  expect_consistent(out);
  ASSERT_EQ(out.sender.notes.size(), 1u);
  EXPECT_NE(out.sender.notes[0].find("send bundles unavailable"), std::string::npos);
}

TEST_F(UringLoopback, SingleShotReceiveWithoutMultishot) {
  const Outcome out = run_pair({.disable = "multishot,defer_taskrun"});
  expect_consistent(out);
  ASSERT_EQ(out.receiver.notes.size(), 1u);
  EXPECT_NE(out.receiver.notes[0].find("single-shot"), std::string::npos);
}

TEST_F(UringLoopback, SkipRxCopyStillCountsEveryByte) {
  expect_consistent(run_pair({.skip_rx_copy = true}));
}

TEST_F(UringLoopback, ZeroCopySendsAreCountedWithTheirNotifications) {
  const Outcome out = run_pair({.zerocopy = ZeroCopy::on});
  expect_consistent(out);
  uint64_t sends = 0, notifications = 0, copied = 0;
  for (const ConnectionStats& c : out.sender.connection_stats) {
    sends += c.zerocopy.sends;
    notifications += c.zerocopy.notifications;
    copied += c.zerocopy.copied;
    EXPECT_FALSE(c.zerocopy.fell_back);
  }
  EXPECT_GT(sends, 0u);
  EXPECT_EQ(notifications, sends);  // the sender waits for the last ones in finish()
  EXPECT_GT(copied, 0u);            // loopback always copies
}

// io.count_reads: each connection's receives by size, in iperf 2's bins of -l/8 (a bundle's
// completion counts as receives of -l and the rest): every receive in a bin, at least one per -l
// bytes, and each connection named by its watch id.
void expect_reads_counted(const Outcome& out) {
  expect_consistent(out);
  const uint64_t length = 16 * 1024;
  for (const ConnectionStats& c : out.receiver.connection_stats) {
    ASSERT_TRUE(c.read_sizes.has_value());
    ASSERT_TRUE(c.stream.has_value());
    const ReadSizes& r = *c.read_sizes;
    EXPECT_EQ(std::accumulate(r.bins.begin(), r.bins.end(), uint64_t{0}), r.reads);
    EXPECT_GE(r.reads, (c.bytes + length - 1) / length);
    EXPECT_LE(r.reads, c.bytes);
  }
}

TEST_F(UringLoopback, ReadSizesCountedInEveryMode) {
  expect_reads_counted(run_pair({.count_reads = true}));
  expect_reads_counted(run_pair({.disable = "multishot,defer_taskrun", .count_reads = true}));
  expect_reads_counted(run_pair({.skip_rx_copy = true, .count_reads = true}));
}

TEST_F(UringLoopback, ReadSizesNotCountedUnlessAsked) {
  const Outcome out = run_pair({});
  for (const ConnectionStats& c : out.receiver.connection_stats)
    EXPECT_FALSE(c.read_sizes.has_value());
}

TEST_F(UringLoopback, SqpollAndPacing) {
  if (!machine().sqpoll) GTEST_SKIP() << machine().sqpoll_reason;
  expect_consistent(run_pair({.sqpoll = true, .rate_limit_bps = 2'000'000'000}));
}

}  // namespace
}  // namespace xttcp
