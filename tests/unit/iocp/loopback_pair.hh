// A receiver worker and a sender worker of the iocp backend on loopback, driven through the
// DataWorker interface as the engine drives them: each on its own thread (open and run on the
// same one), ~300 ms of sending, then the sender stops, finishes and closes, the receiver drains
// (bounded) and stops. Every wait has a timeout; nothing is asserted about speed.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <future>
#include <vector>

#include "base/socket_headers.hh"
#include "engine/backend/backend.hh"
#include "engine/udp/flow_registry.hh"

namespace xttcp::iocp_test {

// A worker thread's result within `bound`. A hung worker thread cannot be joined: the test binary
// then ends (a failure) rather than wait forever.
template <class T>
T get_within(std::future<T>& future, std::chrono::seconds bound, const char* what) {
  if (future.wait_for(bound) != std::future_status::ready) {
    ADD_FAILURE() << what << " did not stop within " << bound.count() << " s";
    std::abort();
  }
  return future.get();
}

struct PairOptions {
  Protocol protocol = Protocol::tcp;
  bool ipv6 = false;
  uint32_t connections = 1;     // sender flows, all to one receiver port
  uint32_t async_buffers = 0;   // -a n (0 = the backend's default)
  uint64_t rate_limit_bps = 0;  // -B
  bool verify_data = false;     // -d on the receiver
  uint32_t buffer = 16 * 1024;  // -b (TCP) or the datagram size (UDP)
  bool wait_all = false;        // -wa on the receiver
  bool latency = false;         // -lm on both: every operation timed into latency period 1
  bool count_reads = false;     // io.count_reads on the receiver, with a connection watch
};

struct PairOutcome {
  bool ran = false;                 // both workers opened
  uint64_t sent = 0, received = 0;  // bytes, from the flow counters
  uint32_t accepts = 0;             // on_accept calls
  uint32_t data_connections = 0;    // on_data_connection calls naming a loopback peer and the port
  WorkerReport sender, receiver;
  uint32_t udp_flow_base = 0;
  std::vector<udp::FlowRecord> sender_flows, receiver_flows;  // UDP registries
  uint64_t sent_operations = 0, received_operations = 0;      // completed sends / receives counted
  LatencyTotals sender_latency, receiver_latency;             // -lm: over every flow (ticks)
};

PairOutcome run_pair(const PairOptions& options);

// A port that was free a moment ago on the loopback address of the family (type: SOCK_STREAM
// or SOCK_DGRAM); 0 when none could be bound.
uint16_t free_port(bool ipv6, int type);

// A loopback TCP port held bound, never listening, for the object's life: a connect to it is
// refused. A port that was only free (free_port) can meanwhile get a listener from a test
// running beside this one, or be picked by a retried connect as its own source port (the
// socket then connects to itself): both made "refused" tests connect (CI, once in 3 ms).
class ClosedPort {
 public:
  ClosedPort();
  ~ClosedPort();
  ClosedPort(const ClosedPort&) = delete;
  ClosedPort& operator=(const ClosedPort&) = delete;
  uint16_t port() const { return port_; }  // 0: none could be bound

 private:
  SOCKET socket_;
  uint16_t port_ = 0;
};

// Whether ::1 can be bound here (Wine on a host without IPv6 cannot).
bool ipv6_loopback_works();

// The iocp backend, or nullptr (with a test failure) when the build lacks it.
Backend* iocp_backend();

}  // namespace xttcp::iocp_test
