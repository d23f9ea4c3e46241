// --rr through the iocp backend on loopback (docs/rr.md): an iocp requester against an iocp
// responder, TCP and UDP, driven through the DataWorker interface as the engine drives them.
// Every flow completes transactions and times each into its own histogram; over the whole run the
// responder answered what the requester completed, within the requests still in flight when it
// stopped (plus, UDP, those given up as lost); --rr-delay-us holds every answer; a UDP flow whose
// requests go unanswered gives them up after the loss pause and ignores a late answer. Waits are
// for events (transactions done, requests seen), each bounded; nothing is asserted about speed.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "engine/net/address.hh"
#include "engine/stats/rr_clock.hh"
#include "engine/udp/flow_admission.hh"
#include "engine/udp/flow_registry.hh"
#include "io_backends/common/rr_flow.hh"
#include "loopback_pair.hh"

namespace xttcp::iocp_test {
namespace {

using namespace std::chrono_literals;

struct RrOptions {
  Protocol protocol = Protocol::tcp;
  uint32_t ports = 2;  // responder ports; requester flow i goes to port i % ports
  uint32_t flows = 4;
  uint32_t depth = 1;
  uint32_t request = 64;
  uint32_t response = 64;
  uint32_t delay_us = 0;          // --rr-delay-us on the responder
  uint64_t per_flow_target = 50;  // transactions every flow makes before the requester stops
};

struct RrOutcome {
  bool ran = false;
  WorkerReport requester, responder;
  std::vector<uint64_t> completed;            // per requester flow: counter operations
  std::vector<uint64_t> completed_bytes;      // per requester flow
  std::vector<HistogramCounts> round_trips;   // per requester flow
  uint64_t answered = 0, answered_bytes = 0;  // responder, every port
  uint32_t accepts = 0;                       // responder's on_accept calls
  uint32_t data_connections = 0;  // responder's on_data_connection calls naming one of its ports
  int64_t open_connections_after_open = 0;
};

TestSpec rr_spec(const RrOptions& options, Role role) {
  TestSpec spec;
  spec.role = role;
  spec.workload.protocol = options.protocol;
  spec.workload.send_buffer = spec.workload.recv_buffer = options.request;
  spec.rr.on = true;
  spec.rr.depth = options.depth;
  spec.rr.response_size = options.response;
  spec.rr.delay_us = options.delay_us;
  spec.layout.address = "127.0.0.1";
  spec.control.connect_timeout_s = 10;
  return spec;
}

RrOutcome run_rr(const RrOptions& options) {
  RrOutcome out;
  Backend* backend = iocp_backend();
  if (backend == nullptr) return out;
  const bool udp = options.protocol == Protocol::udp;
  const TestSpec responder_spec = rr_spec(options, Role::receiver);
  const TestSpec requester_spec = rr_spec(options, Role::sender);
  EXPECT_TRUE(backend->check(requester_spec)) << "the iocp backend refuses --rr";

  WorkerPlan responder_plan, requester_plan;
  std::vector<uint16_t> ports;
  for (uint32_t i = 0; i < options.ports; ++i) {
    ports.push_back(free_port(false, udp ? SOCK_DGRAM : SOCK_STREAM));
    EXPECT_NE(ports.back(), 0) << "no free loopback port";
    responder_plan.flows.push_back(FlowPlan{i, i, ports.back(), 0});
  }
  for (uint32_t i = 0; i < options.flows; ++i)
    requester_plan.flows.push_back(FlowPlan{i, i, ports[i % options.ports], 0});
  auto responder_counters = std::make_unique<FlowCounter[]>(options.ports);
  auto requester_counters = std::make_unique<FlowCounter[]>(options.flows);
  auto histograms = std::make_unique<LatencyHistogram[]>(options.flows);
  auto responder_histograms = std::make_unique<LatencyHistogram[]>(options.ports);
  udp::UdpFlowRegistry responder_registry, requester_registry;
  // What the requester's hello declares in a run: its flows and token, which its UDP requests
  // carry, so the responder may answer them with more bytes than they bring (rr_udp_gate.hh).
  constexpr uint32_t flow_base = 5u << udp::flow_slot_bits;
  constexpr uint16_t flow_token = 0x5eed;
  udp::FlowAdmission admission;
  admission.declare(std::vector<udp::DeclaredFlows>{{flow_base, options.flows, flow_token}});
  responder_registry.set_admission(&admission);
  std::atomic<uint32_t> accepts{0};
  std::atomic<int64_t> open_connections{0};

  WorkerContext responder_context;
  responder_context.spec = &responder_spec;
  responder_context.plan = &responder_plan;
  responder_context.local = *resolve("127.0.0.1", 0, false);
  responder_context.counters = responder_counters.get();
  responder_context.on_accept = [&accepts] { ++accepts; };
  std::atomic<uint32_t> data_connections{0};
  responder_context.on_data_connection = [&data_connections, &ports](const SocketAddress& peer,
                                                                     uint16_t local) {
    if (peer.host() == "127.0.0.1" && std::find(ports.begin(), ports.end(), local) != ports.end())
      ++data_connections;
  };
  responder_context.udp_flows = &responder_registry;
  responder_context.rr_histograms = responder_histograms.get();
  WorkerContext requester_context;
  requester_context.spec = &requester_spec;
  requester_context.plan = &requester_plan;
  requester_context.local = *resolve("", 0, false);
  requester_context.remote = *resolve("127.0.0.1", 0, false);
  requester_context.counters = requester_counters.get();
  requester_context.open_connections = &open_connections;
  requester_context.udp_flows = &requester_registry;
  requester_context.udp_flow_base = flow_base;
  requester_context.udp_flow_token = flow_token;
  requester_context.rr_histograms = histograms.get();

  auto responder = backend->make_worker(responder_context);
  auto requester = backend->make_worker(requester_context);
  EXPECT_TRUE(responder && requester);
  if (!responder || !requester) return out;

  std::atomic<bool> stop_responder{false}, stop_requester{false};
  std::promise<bool> listening, connected;
  auto responder_done = std::async(std::launch::async, [&] {
    Status opened = (*responder)->open();
    EXPECT_TRUE(opened) << (opened ? "" : opened.error().message);
    listening.set_value(static_cast<bool>(opened));
    if (opened) (*responder)->run(stop_responder);
    return (*responder)->finish();
  });
  auto responder_up = listening.get_future();
  if (responder_up.wait_for(10s) != std::future_status::ready || !responder_up.get()) {
    stop_responder = true;
    get_within(responder_done, 10s, "responder");
    return out;
  }
  auto requester_done = std::async(std::launch::async, [&] {
    Status opened = (*requester)->open();
    EXPECT_TRUE(opened) << (opened ? "" : opened.error().message);
    if (opened) out.open_connections_after_open = open_connections.load();
    connected.set_value(static_cast<bool>(opened));
    if (opened) (*requester)->run(stop_requester);
    WorkerReport report = (*requester)->finish();
    requester->reset();  // closes the sockets: the responder sees the connections end
    return report;
  });
  auto requester_up = connected.get_future();
  out.ran = requester_up.wait_for(15s) == std::future_status::ready && requester_up.get();
  if (out.ran) {  // until every flow made its transactions (bounded)
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    auto slowest = [&] {
      uint64_t least = UINT64_MAX;
      for (uint32_t i = 0; i < options.flows; ++i)
        least = std::min(least, read(requester_counters[i]).operations);
      return least;
    };
    while (slowest() < options.per_flow_target && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(5ms);
  }
  stop_requester = true;
  out.requester = get_within(requester_done, 15s, "requester");
  stop_responder = true;
  out.responder = get_within(responder_done, 15s, "responder");

  for (uint32_t i = 0; i < options.flows; ++i) {
    const CounterSnapshot snapshot = read(requester_counters[i]);
    out.completed.push_back(snapshot.operations);
    out.completed_bytes.push_back(snapshot.bytes);
    out.round_trips.push_back(histograms[i].read());
  }
  for (uint32_t i = 0; i < options.ports; ++i) {
    const CounterSnapshot snapshot = read(responder_counters[i]);
    out.answered += snapshot.operations;
    out.answered_bytes += snapshot.bytes;
    EXPECT_EQ(responder_histograms[i].read().count, 0u) << "a responder times nothing";
  }
  out.accepts = accepts.load();
  out.data_connections = data_connections.load();
  return out;
}

uint64_t sum(const std::vector<uint64_t>& values) {
  uint64_t total = 0;
  for (uint64_t v : values) total += v;
  return total;
}

void expect_transactions(const RrOptions& options, const RrOutcome& out) {
  ASSERT_TRUE(out.ran);
  const bool udp = options.protocol == Protocol::udp;
  EXPECT_EQ(out.requester.errors, 0u) << out.requester.first_error;
  EXPECT_EQ(out.responder.errors, 0u) << out.responder.first_error;
  EXPECT_EQ(out.requester.connections, options.flows);
  EXPECT_EQ(out.open_connections_after_open, udp ? 0 : int64_t{options.flows});
  const uint64_t transaction = uint64_t{options.request} + options.response;
  for (uint32_t i = 0; i < options.flows; ++i) {
    SCOPED_TRACE("flow " + std::to_string(i));
    EXPECT_GE(out.completed[i], options.per_flow_target);
    // One round trip in the flow's histogram per transaction on its counter, each both ways.
    EXPECT_EQ(out.round_trips[i].count, out.completed[i]);
    EXPECT_EQ(out.completed_bytes[i], out.completed[i] * transaction);
    EXPECT_GT(out.round_trips[i].percentile(0.5), 0u);
  }
  // Every completed transaction was answered; at most the requests in flight when the requester
  // stopped (and, UDP, those it gave up) were answered and never completed.
  const uint64_t completed = sum(out.completed);
  EXPECT_GE(out.answered, completed);
  EXPECT_LE(out.answered,
            completed + uint64_t{options.depth} * options.flows + out.requester.rr_lost);
  EXPECT_EQ(out.answered_bytes, out.answered * transaction);
  if (udp) {
    EXPECT_EQ(out.responder.connections, 0u);
    EXPECT_EQ(out.accepts, options.ports);  // each port's first datagram
    EXPECT_TRUE(out.requester.connection_stats.empty());
  } else {
    EXPECT_EQ(out.responder.connections, options.flows);
    EXPECT_EQ(out.accepts, options.flows);
    EXPECT_EQ(out.data_connections, options.flows);  // the Windows dialect's tokens need them
    EXPECT_EQ(out.requester.rr_lost, 0u);
    ASSERT_EQ(out.requester.connection_stats.size(), options.flows);
    uint64_t reported = 0;
    for (const ConnectionStats& stats : out.requester.connection_stats) {
      EXPECT_NE(stats.local, "");
      EXPECT_NE(stats.remote, "");
      reported += stats.bytes;
    }
    EXPECT_EQ(reported, sum(out.completed_bytes));
    // The responder's connections, each with the request bytes it read: whole requests for
    // every transaction it answered (a request cut by the end may add a part of one).
    ASSERT_EQ(out.responder.connection_stats.size(), options.flows);
    uint64_t requests = 0;
    for (const ConnectionStats& stats : out.responder.connection_stats)
      requests += stats.bytes / options.request;
    EXPECT_EQ(requests, out.answered);
  }
}

// Round trips on Windows are QueryPerformanceCounter ticks: one second of them is 10^9 ns, and
// the result names the clock with its rate.
TEST(IocpRr, ClockIsQueryPerformanceCounter) {
  const RrClock& clock = RrClock::get();
  EXPECT_FALSE(clock.tsc());
  LARGE_INTEGER frequency;
  ASSERT_TRUE(QueryPerformanceFrequency(&frequency));
  const auto ticks = static_cast<uint64_t>(frequency.QuadPart);
  EXPECT_NEAR(static_cast<double>(clock.to_ns(ticks)), 1e9, 1e3);
  EXPECT_NEAR(static_cast<double>(clock.from_ns(1'000'000'000)), static_cast<double>(ticks),
              ticks * 1e-6 + 1);
  EXPECT_EQ(clock.description(),
            fmt::format("QueryPerformanceCounter, {:.1f} MHz", static_cast<double>(ticks) / 1e6));
  const uint64_t before = clock.now();
  EXPECT_GE(clock.now(), before);
}

TEST(IocpRr, TcpTransactionsOnEveryFlow) {
  // Responses of another size than requests: each end cuts the byte stream into its own size.
  const RrOptions options{.protocol = Protocol::tcp, .request = 100, .response = 300};
  expect_transactions(options, run_rr(options));
}

TEST(IocpRr, TcpDepthKeepsRequestsInFlight) {
  const RrOptions options{.protocol = Protocol::tcp, .ports = 1, .flows = 2, .depth = 8};
  expect_transactions(options, run_rr(options));
}

TEST(IocpRr, UdpTransactionsOnEveryFlow) {
  const RrOptions options{.protocol = Protocol::udp, .depth = 4, .request = 64, .response = 100};
  expect_transactions(options, run_rr(options));
}

// --rr-delay-us: the responder holds each answer, so no round trip is shorter than the delay
// (a percentile is a bucket's midpoint, within 0.4 % of its values).
TEST(IocpRr, ResponderHoldsEachAnswer) {
  for (Protocol protocol : {Protocol::tcp, Protocol::udp}) {
    SCOPED_TRACE(to_string(protocol));
    const RrOptions options{
        .protocol = protocol, .ports = 1, .flows = 1, .delay_us = 20'000, .per_flow_target = 3};
    const RrOutcome out = run_rr(options);
    expect_transactions(options, out);
    ASSERT_FALSE(out.round_trips.empty());
    EXPECT_GE(out.round_trips[0].percentile(0.0001), 19'900'000u);
  }
}

// A plain UDP socket that reads the requests and answers none, then answers one of the first
// round late (after the requester gave that round up): the requester counts its requests in flight
// as lost after the loss pause, sends new ones, and ignores the late answer.
TEST(IocpRr, UdpUnansweredRequestsAreGivenUpAndLateAnswersIgnored) {
  Backend* backend = iocp_backend();
  ASSERT_NE(backend, nullptr);
  const uint16_t port = free_port(false, SOCK_DGRAM);
  ASSERT_NE(port, 0);
  const SOCKET hole = socket(AF_INET, SOCK_DGRAM, 0);
  ASSERT_NE(hole, INVALID_SOCKET);
  const SocketAddress at = *resolve("127.0.0.1", port, false);
  ASSERT_EQ(bind(hole, at.get(), at.length), 0);
  const DWORD timeout_ms = 10'000;  // every wait for a request is bounded
  setsockopt(hole, SOL_SOCKET, SO_RCVTIMEO, reinterpret_cast<const char*>(&timeout_ms),
             sizeof timeout_ms);

  const RrOptions options{.protocol = Protocol::udp, .ports = 1, .flows = 1, .depth = 2};
  const TestSpec spec = rr_spec(options, Role::sender);
  WorkerPlan plan;
  plan.flows.push_back(FlowPlan{0, 0, port, 0});
  FlowCounter counter;
  LatencyHistogram histogram;
  udp::UdpFlowRegistry registry;
  WorkerContext context;
  context.spec = &spec;
  context.plan = &plan;
  context.local = *resolve("", 0, false);
  context.remote = *resolve("127.0.0.1", 0, false);
  context.counters = &counter;
  context.udp_flows = &registry;
  context.rr_histograms = &histogram;
  auto made = backend->make_worker(context);
  ASSERT_TRUE(made) << made.error().message;
  std::unique_ptr<DataWorker> requester = std::move(*made);
  ASSERT_TRUE(requester->open());
  std::atomic<bool> stop{false};
  auto done = std::async(std::launch::async, [&] {
    requester->run(stop);
    return requester->finish();
  });

  // Round 1: `depth` requests; round 2 comes only after the loss pause gave them up.
  unsigned char request[256];
  sockaddr_storage from{};
  int from_length = sizeof from;
  auto next_request = [&] {
    from_length = sizeof from;
    return recvfrom(hole, reinterpret_cast<char*>(request), sizeof request, 0,
                    reinterpret_cast<sockaddr*>(&from), &from_length);
  };
  unsigned char first[256];
  ASSERT_EQ(next_request(), int(options.request));
  std::memcpy(first, request, options.request);
  for (uint32_t i = 1; i < 2 * options.depth; ++i)
    ASSERT_EQ(next_request(), int(options.request)) << "request " << i;
  // The first request's answer, now late: its round was given up.
  std::memcpy(request, first, options.request);
  ASSERT_EQ(sendto(hole, reinterpret_cast<const char*>(request), options.response, 0,
                   reinterpret_cast<const sockaddr*>(&from), from_length),
            int(options.response));
  // Round 3, after round 2 was given up too: the late answer was taken in by then.
  ASSERT_EQ(next_request(), int(options.request));
  stop = true;
  const WorkerReport report = get_within(done, 15s, "requester");
  closesocket(hole);
  EXPECT_EQ(report.errors, 0u) << report.first_error;
  EXPECT_GE(report.rr_lost, 2u * options.depth);
  EXPECT_EQ(read(counter).operations, 0u);
  EXPECT_EQ(histogram.read().count, 0u);
}

}  // namespace
}  // namespace xttcp::iocp_test
