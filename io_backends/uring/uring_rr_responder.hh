// io_uring --rr responder (docs/rr.md): the epoll responder's answers on one ring per worker.
// TCP: an ACCEPT armed per listener, a RECV per connection, responses in one SEND at a time
// from a shared buffer. UDP: per socket a RECVMSG, then a SENDMSG of the answer to the source
// (with the request's send time), then the next RECVMSG.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <vector>

#include "base/unique_fd.hh"
#include "engine/backend/data_worker.hh"
#include "io_backends/common/io_buffer.hh"
#include "io_backends/common/rr_flow.hh"
#include "io_backends/common/rr_udp_gate.hh"
#include "io_backends/uring/probe.hh"
#include "io_backends/uring/ring.hh"

namespace xttcp {

class UringRrResponder final : public DataWorker {
 public:
  UringRrResponder(const WorkerContext& context, const UringCapabilities& caps)
      : context_(context), caps_(caps) {}
  Status open() override;
  void run(const std::atomic<bool>& stop) override;
  WorkerReport finish() override;

 private:
  struct Endpoint {  // a TCP listener or a UDP socket
    UniqueFd fd;
    uint32_t slot = 0;
    bool armed = false;
    bool seen_data = false;
    // UDP: the request and its answer, and where it came from.
    std::vector<unsigned char> in, out;
    SocketAddress from;  // the request's source, where its answer goes
    iovec in_iov{}, out_iov{};
    msghdr in_msg{}, out_msg{};
  };
  struct Connection {
    UniqueFd fd;
    uint32_t slot = 0;
    MessageCounter requests;
    uint64_t unsent = 0;
    uint64_t bytes = 0;
    std::vector<unsigned char> in;
    uint32_t armed = 0;  // its RECV and SEND in the kernel
    bool closed = false;
  };

  void arm_endpoint(uint32_t index);
  void arm_recv(uint32_t index);
  void send_responses(uint32_t index);
  void on_completion(const io_uring_cqe& cqe);
  void on_accept(uint32_t index, int res);
  void on_recv(uint32_t index, int res);
  void on_datagram(uint32_t index, int res);
  void close_connection(uint32_t index, int err);
  void hold_response() const;
  void record_error(const std::string& line);
  void cancel_and_drain();

  const WorkerContext& context_;
  UringCapabilities caps_;
  Ring ring_;
  uint32_t request_ = 0, response_ = 0;
  bool udp_ = false, stopping_ = false;
  bool filter_ = false;  // --allow: each request's source is checked
  UdpRrGate gate_;       // UDP: who gets an answer, and how large
  uint32_t armed_ = 0;
  std::vector<Endpoint> endpoints_;
  std::vector<Connection> connections_;
  std::vector<uint32_t> free_;  // closed connections with nothing left in the kernel
  IoBuffer out_;                // TCP responses: bytes of 'A'
  WorkerReport report_;
};

}  // namespace xttcp
