// epoll --rr responder (docs/rr.md): answers every request of -b bytes (TCP: counted out of the
// stream; UDP: every datagram the gate lets through, rr_udp_gate.hh) with --response-size bytes,
// after --rr-delay-us if given, and counts one transaction per response. UDP responses carry the
// request's first 8 bytes (its send time) back. A UDP worker with one socket blocks in recvfrom()
// (bounded by SO_RCVTIMEO) instead of epoll_wait: one system call fewer per transaction. A TCP
// worker with one listener does the same while it has one connection: recv() and send() a
// transaction, as sockperf's server; an idle stop bound lets it take new connections.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/unique_fd.hh"
#include "engine/backend/data_worker.hh"
#include "io_backends/common/io_buffer.hh"
#include "io_backends/common/rr_flow.hh"
#include "io_backends/common/rr_udp_gate.hh"

namespace xttcp {

class EpollRrResponder final : public DataWorker {
 public:
  explicit EpollRrResponder(const WorkerContext& context) : context_(context) {}
  Status open() override;
  void run(const std::atomic<bool>& stop) override;
  WorkerReport finish() override;

 private:
  struct Endpoint {  // a TCP listener or a UDP socket
    UniqueFd fd;
    uint32_t slot = 0;
    bool seen_data = false;  // UDP: the first datagram starts the -N clock
  };
  struct Connection {
    UniqueFd fd;
    uint32_t slot = 0;
    MessageCounter requests;
    uint64_t unsent = 0;  // response bytes owed
    uint64_t bytes = 0;   // for its ConnectionStats
    bool wants_out = false;
    bool blocking = false;  // made blocking (with the stop bound) to be served alone
  };

  void accept_all(Endpoint& listener);
  // Reads and answers what the connection holds; false when it held nothing (or closed). `block`:
  // the connection is served alone, its calls wait (up to the stop bound).
  bool tcp_serve(uint32_t index, bool block);
  void tcp_flush(uint32_t index, bool block);
  // The one live connection of a one-listener worker, made blocking; nullopt otherwise.
  std::optional<uint32_t> lone_connection();
  void close_connection(uint32_t index, int err);
  void udp_serve(Endpoint& socket);
  void hold_response() const;  // --rr-delay-us
  void set_events(uint32_t index, bool out);

  const WorkerContext& context_;
  uint32_t request_ = 0, response_ = 0;
  bool blocking_ = false;      // UDP, one socket: blocking recvfrom, no epoll_wait
  bool one_listener_ = false;  // TCP, one flow: its lone connection is served blocking
  uint32_t live_ = 0;          // open connections
  uint32_t newest_ = 0;        // the last accepted connection's index
  uint32_t lone_turns_ = 0;    // turns served alone, for the periodic look at the epoll set
  bool filter_ = false;        // --allow: each request's source is checked
  UdpRrGate gate_;             // UDP: who gets an answer, and how large
  UniqueFd epoll_;
  std::vector<Endpoint> endpoints_;
  std::vector<Connection> connections_;
  std::vector<uint32_t> free_;  // reusable entries of connections_
  IoBuffer out_, in_;
  WorkerReport report_;
};

}  // namespace xttcp
