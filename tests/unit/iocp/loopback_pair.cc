#include "loopback_pair.hh"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <future>
#include <memory>
#include <thread>

#include "engine/net/address.hh"
#include "io_backends/registry.hh"

namespace xttcp::iocp_test {

using namespace std::chrono_literals;

namespace {

uint64_t operations(const FlowCounter* counters, uint32_t n) {
  uint64_t sum = 0;
  for (uint32_t i = 0; i < n; ++i) sum += read(counters[i]).operations;
  return sum;
}

LatencyTotals latency(const FlowCounter* counters, uint32_t n, uint64_t period) {
  LatencyTotals all;
  for (uint32_t i = 0; i < n; ++i) all.merge(read_latency(counters[i], period));
  return all;
}

uint64_t total(const FlowCounter* counters, uint32_t n) {
  uint64_t sum = 0;
  for (uint32_t i = 0; i < n; ++i) sum += read(counters[i]).bytes;
  return sum;
}

SocketAddress loopback(bool ipv6, uint16_t port) {
  auto address = resolve(ipv6 ? "::1" : "127.0.0.1", port, ipv6);
  EXPECT_TRUE(address) << (address ? "" : address.error().message);
  return address ? *address : SocketAddress{};
}

}  // namespace

Backend* iocp_backend() {
  auto backend = find_backend("iocp");
  EXPECT_TRUE(backend) << (backend ? "" : backend.error().message);
  return backend ? *backend : nullptr;
}

uint16_t free_port(bool ipv6, int type) {
  if (!start_sockets()) return 0;
  const SOCKET s = socket(ipv6 ? AF_INET6 : AF_INET, type, 0);
  if (s == INVALID_SOCKET) return 0;
  SocketAddress address = loopback(ipv6, 0);
  uint16_t port = 0;
  if (bind(s, address.get(), address.length) == 0) {
    int length = static_cast<int>(sizeof address.storage);
    if (getsockname(s, address.get(), &length) == 0) port = address.port();
  }
  closesocket(s);
  return port;
}

ClosedPort::ClosedPort() : socket_(INVALID_SOCKET) {
  if (!start_sockets()) return;
  socket_ = socket(AF_INET, SOCK_STREAM, 0);
  if (socket_ == INVALID_SOCKET) return;
  SocketAddress address = loopback(false, 0);
  int length = static_cast<int>(sizeof address.storage);
  if (bind(socket_, address.get(), address.length) == 0 &&
      getsockname(socket_, address.get(), &length) == 0)
    port_ = address.port();
}

ClosedPort::~ClosedPort() {
  if (socket_ != INVALID_SOCKET) closesocket(socket_);
}

bool ipv6_loopback_works() { return free_port(true, SOCK_STREAM) != 0; }

PairOutcome run_pair(const PairOptions& options) {
  PairOutcome out;
  Backend* backend = iocp_backend();
  if (backend == nullptr) return out;
  const bool udp = options.protocol == Protocol::udp;
  const uint16_t port = free_port(options.ipv6, udp ? SOCK_DGRAM : SOCK_STREAM);
  EXPECT_NE(port, 0) << "no free loopback port";
  const uint32_t n = options.connections;

  TestSpec receiver_spec;
  receiver_spec.role = Role::receiver;
  receiver_spec.workload.protocol = options.protocol;
  receiver_spec.layout.ipv6 = options.ipv6;
  receiver_spec.workload.recv_buffer = options.buffer;
  receiver_spec.io.outstanding = options.async_buffers;
  receiver_spec.workload.verify_data = options.verify_data;
  receiver_spec.io.wait_all = options.wait_all;
  receiver_spec.io.time_each_call = options.latency;
  receiver_spec.io.count_reads = options.count_reads;
  TestSpec sender_spec;
  sender_spec.role = Role::sender;
  sender_spec.workload.protocol = options.protocol;
  sender_spec.layout.ipv6 = options.ipv6;
  sender_spec.layout.address = options.ipv6 ? "::1" : "127.0.0.1";
  sender_spec.layout.ports = 1;
  sender_spec.layout.threads_per_port = 1;
  sender_spec.layout.conns_per_thread = n;
  sender_spec.workload.send_buffer = options.buffer;
  sender_spec.workload.rate_limit_bps = options.rate_limit_bps;
  sender_spec.workload.udp_payload = UdpPayload::native;
  sender_spec.io.outstanding = options.async_buffers;
  sender_spec.control.connect_timeout_s = 10;
  sender_spec.io.time_each_call = options.latency;
  const std::atomic<uint64_t> latency_period{1};  // never moves on: the whole run is one period

  WorkerPlan receiver_plan, sender_plan;
  receiver_plan.flows.push_back(FlowPlan{0, 0, port, 0});
  for (uint32_t i = 0; i < n; ++i) sender_plan.flows.push_back(FlowPlan{i, 0, port, 0});
  auto receiver_counters = std::make_unique<FlowCounter[]>(1);
  auto sender_counters = std::make_unique<FlowCounter[]>(n);
  udp::UdpFlowRegistry receiver_registry, sender_registry;
  std::atomic<uint32_t> accepts{0};
  std::atomic<int64_t> open_connections{0};
  out.udp_flow_base = 0x00500000;

  WorkerContext receiver_context;
  receiver_context.spec = &receiver_spec;
  receiver_context.plan = &receiver_plan;
  receiver_context.local = loopback(options.ipv6, 0);
  receiver_context.counters = receiver_counters.get();
  receiver_context.on_accept = [&accepts] { ++accepts; };
  std::atomic<uint32_t> data_connections{0};
  receiver_context.on_data_connection = [&data_connections, port](const SocketAddress& peer,
                                                                  uint16_t local) {
    if (local == port && (peer.host() == "127.0.0.1" || peer.host() == "::1")) ++data_connections;
  };
  ConnectionWatch watch(limits::watched_connections, true);
  if (options.count_reads) receiver_context.connection_watch = &watch;
  receiver_context.udp_flows = &receiver_registry;
  if (options.latency) receiver_context.latency_period = &latency_period;
  WorkerContext sender_context;
  sender_context.spec = &sender_spec;
  sender_context.plan = &sender_plan;
  sender_context.local = *resolve("", 0, options.ipv6);
  sender_context.remote = loopback(options.ipv6, 0);
  sender_context.counters = sender_counters.get();
  sender_context.open_connections = &open_connections;
  sender_context.udp_flows = &sender_registry;
  sender_context.udp_flow_base = out.udp_flow_base;
  if (options.latency) sender_context.latency_period = &latency_period;

  auto receiver = backend->make_worker(receiver_context);
  auto sender = backend->make_worker(sender_context);
  EXPECT_TRUE(receiver) << (receiver ? "" : receiver.error().message);
  EXPECT_TRUE(sender) << (sender ? "" : sender.error().message);
  if (!receiver || !sender) return out;

  std::atomic<bool> stop_receiver{false}, stop_sender{false};
  std::promise<bool> listening, connected;
  auto receiver_done = std::async(std::launch::async, [&] {
    Status opened = (*receiver)->open();
    EXPECT_TRUE(opened) << (opened ? "" : opened.error().message);
    listening.set_value(static_cast<bool>(opened));
    if (opened) (*receiver)->run(stop_receiver);
    return (*receiver)->finish();
  });
  auto receiver_up = listening.get_future();
  if (receiver_up.wait_for(10s) != std::future_status::ready || !receiver_up.get()) {
    stop_receiver = true;
    get_within(receiver_done, 10s, "receiver");
    return out;
  }
  auto sender_done = std::async(std::launch::async, [&] {
    Status opened = (*sender)->open();
    EXPECT_TRUE(opened) << (opened ? "" : opened.error().message);
    connected.set_value(static_cast<bool>(opened));
    if (opened) (*sender)->run(stop_sender);
    WorkerReport report = (*sender)->finish();
    sender->reset();  // closes the sockets: the receiver sees EOF
    return report;
  });
  auto sender_up = connected.get_future();
  out.ran = sender_up.wait_for(15s) == std::future_status::ready && sender_up.get();
  if (out.ran) {
    EXPECT_EQ(open_connections.load(), udp ? 0 : static_cast<int64_t>(n));
    std::this_thread::sleep_for(300ms);
  }
  stop_sender = true;
  out.sender = get_within(sender_done, 15s, "sender");
  out.sent = total(sender_counters.get(), n);

  // The receiver drains what is still on its way (bounded wait, no speed asserted).
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (total(receiver_counters.get(), 1) < out.sent &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(5ms);
  stop_receiver = true;
  out.receiver = get_within(receiver_done, 15s, "receiver");
  out.received = total(receiver_counters.get(), 1);
  out.accepts = accepts.load();
  out.data_connections = data_connections.load();
  out.sender_flows = sender_registry.snapshot();
  out.receiver_flows = receiver_registry.snapshot();
  out.sent_operations = operations(sender_counters.get(), n);
  out.received_operations = operations(receiver_counters.get(), 1);
  out.sender_latency = latency(sender_counters.get(), n, 1);
  out.receiver_latency = latency(receiver_counters.get(), 1, 1);
  return out;
}

}  // namespace xttcp::iocp_test
