// The iocp backend's failure paths: -d finds bytes that are not 'A', a connect to a closed port
// is retried and then fails in one line naming it (and succeeds once a listener comes), a worker
// with nothing to do stops when told.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "engine/net/address.hh"
#include "loopback_pair.hh"

namespace xttcp::iocp_test {
namespace {

using namespace std::chrono_literals;

uint64_t total(const FlowCounter& counter) { return read(counter).bytes; }

// A plain blocking Winsock client: connects to 127.0.0.1:port, sends `bytes` of `fill`, closes.
bool send_raw(uint16_t port, std::size_t bytes, char fill) {
  const SOCKET s = socket(AF_INET, SOCK_STREAM, 0);
  if (s == INVALID_SOCKET) return false;
  auto address = resolve("127.0.0.1", port, false);
  bool sent = address && connect(s, address->get(), address->length) == 0;
  const std::vector<char> data(bytes, fill);
  std::size_t done = 0;
  while (sent && done < bytes) {
    const int n = send(s, data.data() + done, static_cast<int>(bytes - done), 0);
    if (n <= 0)
      sent = false;
    else
      done += static_cast<std::size_t>(n);
  }
  shutdown(s, SD_SEND);
  closesocket(s);
  return sent;
}

struct Receiver {
  TestSpec spec;
  WorkerPlan plan;
  FlowCounter counter;
  WorkerContext context;
  std::unique_ptr<DataWorker> worker;
};

std::unique_ptr<Receiver> make_receiver(uint16_t port) {
  auto r = std::make_unique<Receiver>();
  r->spec.role = Role::receiver;
  r->spec.workload.recv_buffer = 4096;
  r->plan.flows.push_back(FlowPlan{0, 0, port, 0});
  r->context.spec = &r->spec;
  r->context.plan = &r->plan;
  r->context.local = *resolve("127.0.0.1", 0, false);
  r->context.counters = &r->counter;
  return r;
}

TEST(IocpFailures, VerifyDataCountsBytesThatAreNotA) {
  Backend* backend = iocp_backend();
  ASSERT_NE(backend, nullptr);
  const uint16_t port = free_port(false, SOCK_STREAM);
  ASSERT_NE(port, 0);
  auto r = make_receiver(port);
  r->spec.workload.verify_data = true;
  auto made = backend->make_worker(r->context);
  ASSERT_TRUE(made) << made.error().message;
  r->worker = std::move(*made);
  ASSERT_TRUE(r->worker->open());

  std::atomic<bool> stop{false};
  auto done = std::async(std::launch::async, [&] {
    r->worker->run(stop);
    return r->worker->finish();
  });
  constexpr std::size_t bytes = 10000;
  EXPECT_TRUE(send_raw(port, bytes, 'B'));
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (total(r->counter) < bytes && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(5ms);
  stop = true;
  if (done.wait_for(10s) != std::future_status::ready) {
    ADD_FAILURE() << "receiver did not stop within 10 s";
    std::abort();
  }
  const WorkerReport report = done.get();
  EXPECT_EQ(total(r->counter), bytes);
  EXPECT_GT(report.errors, 0u);
  EXPECT_NE(report.first_error.find("not all 'A' (-d)"), std::string::npos) << report.first_error;
  EXPECT_EQ(report.first_error.find('\n'), std::string::npos);
  EXPECT_EQ(report.connections, 1u);
}

// Count mode ends a receiver's flow at the end of its stream: by then every byte of it must be
// counted, even those whose receive completes after the empty one that saw the end (-a 4 keeps
// four receives outstanding; the engine reads the counters as soon as the last flow is done).
TEST(IocpFailures, FlowIsDoneOnlyOnceEveryByteIsCounted) {
  Backend* backend = iocp_backend();
  ASSERT_NE(backend, nullptr);
  constexpr std::size_t bytes = 4 << 20;
  for (int round = 0; round < 5; ++round) {
    const uint16_t port = free_port(false, SOCK_STREAM);
    ASSERT_NE(port, 0);
    auto r = make_receiver(port);
    r->spec.io.outstanding = 4;
    std::promise<uint64_t> counted_at_done;
    std::atomic<int> done_calls{0};
    r->context.on_flow_done = [&] {
      if (done_calls++ == 0) counted_at_done.set_value(total(r->counter));
    };
    auto made = backend->make_worker(r->context);
    ASSERT_TRUE(made) << made.error().message;
    r->worker = std::move(*made);
    ASSERT_TRUE(r->worker->open());
    std::atomic<bool> stop{false};
    auto ran = std::async(std::launch::async, [&] {
      r->worker->run(stop);
      return r->worker->finish();
    });
    EXPECT_TRUE(send_raw(port, bytes, 'A'));
    auto at_done = counted_at_done.get_future();
    const bool done = at_done.wait_for(10s) == std::future_status::ready;
    stop = true;
    if (ran.wait_for(10s) != std::future_status::ready) {
      ADD_FAILURE() << "receiver did not stop within 10 s";
      std::abort();
    }
    ASSERT_TRUE(done) << "the flow was never done";
    EXPECT_EQ(at_done.get(), bytes) << "round " << round;
    EXPECT_EQ(done_calls.load(), 1);
  }
}

// A sender of one flow to 127.0.0.1:port with --connect-timeout `timeout_s`.
struct Sender {
  TestSpec spec;
  WorkerPlan plan;
  FlowCounter counter;
  WorkerContext context;
  std::unique_ptr<DataWorker> worker;
};

// The worker is made too (a test failure and nullptr if the backend refuses it).
std::unique_ptr<Sender> make_sender(uint16_t port, uint32_t timeout_s) {
  auto s = std::make_unique<Sender>();
  s->spec.role = Role::sender;
  s->spec.layout.address = "127.0.0.1";
  s->spec.layout.ports = s->spec.layout.threads_per_port = s->spec.layout.conns_per_thread = 1;
  s->spec.control.connect_timeout_s = timeout_s;
  s->plan.flows.push_back(FlowPlan{0, 0, port, 0});
  s->context.spec = &s->spec;
  s->context.plan = &s->plan;
  s->context.local = *resolve("", 0, false);
  s->context.remote = *resolve("127.0.0.1", 0, false);
  s->context.counters = &s->counter;
  Backend* backend = iocp_backend();
  if (backend == nullptr) return nullptr;
  auto made = backend->make_worker(s->context);
  if (!made) {
    ADD_FAILURE() << made.error().message;
    return nullptr;
  }
  s->worker = std::move(*made);
  return s;
}

// open() on another thread; the future's bound only catches a hang.
Status open_bounded(DataWorker& worker) {
  auto opened = std::async(std::launch::async, [&] { return worker.open(); });
  if (opened.wait_for(30s) != std::future_status::ready) {
    ADD_FAILURE() << "open() did not return within 30 s";
    std::abort();
  }
  return opened.get();
}

TEST(IocpFailures, ConnectToClosedPortRetriesThenFailsNamingThePort) {
  const ClosedPort closed;
  const uint16_t port = closed.port();
  ASSERT_NE(port, 0);
  auto s = make_sender(port, 2);
  ASSERT_NE(s, nullptr);

  const Status status = open_bounded(*s->worker);  // refused, retried for 2 s
  ASSERT_FALSE(status);
  const std::string& message = status.error().message;
  EXPECT_EQ(message.rfind("iocp: 1 of 1 connections to 127.0.0.1 (first: port " +
                              std::to_string(port) + ") not established within 2 s",
                          0),
            0u)
      << message;
  EXPECT_NE(message.find("connection refused, "), std::string::npos) << message;
  EXPECT_NE(message.find(" tries (is the receiver running?)"), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

// NTttcp's senders may start first: a refused connect is tried again until the receiver listens.
TEST(IocpFailures, ConnectRetriesUntilTheReceiverListens) {
  const uint16_t port = free_port(false, SOCK_STREAM);
  ASSERT_NE(port, 0);
  auto s = make_sender(port, 20);
  ASSERT_NE(s, nullptr);

  auto opened = std::async(std::launch::async, [&] { return s->worker->open(); });
  std::this_thread::sleep_for(500ms);  // a few refusals first
  const SOCKET listener = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_NE(listener, INVALID_SOCKET);
  auto address = resolve("127.0.0.1", port, false);
  ASSERT_TRUE(address);
  ASSERT_EQ(bind(listener, address->get(), address->length), 0);
  ASSERT_EQ(listen(listener, 4), 0);
  if (opened.wait_for(30s) != std::future_status::ready) {
    ADD_FAILURE() << "open() did not return within 30 s";
    std::abort();
  }
  const Status status = opened.get();
  EXPECT_TRUE(status) << status.error().message;
  closesocket(listener);
}

TEST(IocpFailures, BindToAPortInUseSaysSo) {
  Backend* backend = iocp_backend();
  ASSERT_NE(backend, nullptr);
  const uint16_t port = free_port(false, SOCK_STREAM);
  ASSERT_NE(port, 0);
  auto first = make_receiver(port);
  auto second = make_receiver(port);
  auto made_first = backend->make_worker(first->context);
  auto made_second = backend->make_worker(second->context);
  ASSERT_TRUE(made_first && made_second);
  ASSERT_TRUE((*made_first)->open());
  const Status status = (*made_second)->open();
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().message.rfind("iocp: port " + std::to_string(port) + ": bind ", 0), 0u)
      << status.error().message;
  EXPECT_NE(status.error().message.find("(WSAEADDRINUSE)"), std::string::npos)
      << status.error().message;
}

// A receiver nobody connects to, and a UDP receiver nobody sends to, stop when told.
TEST(IocpFailures, IdleWorkersStopWhenTold) {
  Backend* backend = iocp_backend();
  ASSERT_NE(backend, nullptr);
  for (Protocol protocol : {Protocol::tcp, Protocol::udp}) {
    const uint16_t port = free_port(false, protocol == Protocol::udp ? SOCK_DGRAM : SOCK_STREAM);
    ASSERT_NE(port, 0);
    auto r = make_receiver(port);
    r->spec.workload.protocol = protocol;
    udp::UdpFlowRegistry registry;
    r->context.udp_flows = &registry;
    auto made = backend->make_worker(r->context);
    ASSERT_TRUE(made) << made.error().message;
    r->worker = std::move(*made);
    ASSERT_TRUE(r->worker->open());
    std::atomic<bool> stop{false};
    auto done = std::async(std::launch::async, [&] {
      r->worker->run(stop);
      return r->worker->finish();
    });
    std::this_thread::sleep_for(150ms);
    stop = true;
    if (done.wait_for(10s) != std::future_status::ready) {
      ADD_FAILURE() << to_string(protocol) << " receiver did not stop within 10 s";
      std::abort();
    }
    const WorkerReport report = done.get();
    EXPECT_EQ(report.errors, 0u) << report.first_error;
    EXPECT_EQ(report.connections, 0u);
    r->worker.reset();  // closes, drains: must not hang either
  }
}

}  // namespace
}  // namespace xttcp::iocp_test
