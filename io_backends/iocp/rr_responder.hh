// iocp --rr responder (docs/rr.md): answers every request of -b bytes with --response-size bytes,
// after --rr-delay-us if given, and counts one transaction (request and response bytes) per
// answer. TCP: listeners that accept any number of connections (ListenerSet: AcceptEx), each
// connection (TCP_NODELAY) with one WSARecv pending, its byte stream cut into requests, and one
// WSASend at a time of the responses owed from a shared buffer of 'A'. UDP: per socket one
// WSARecvFrom pending; each datagram is a request, answered by a WSASendTo to its source from one
// of the socket's send slots, carrying the request's first 8 bytes (its send time) back, if the
// gate lets it (rr_udp_gate.hh: no answer larger than the request to a source that proved
// nothing).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "io_backends/common/rr_flow.hh"
#include "io_backends/common/rr_udp_gate.hh"
#include "io_backends/iocp/iocp_worker.hh"
#include "io_backends/iocp/listener_set.hh"
#include "io_backends/iocp/overlapped_socket.hh"

namespace xttcp::iocp {

class RrResponder final : public IocpWorker {
 public:
  explicit RrResponder(const WorkerContext& context);
  ~RrResponder() override;
  Status open() override;
  void run(const std::atomic<bool>& stop) override;
  WorkerReport finish() override;

 private:
  // ---- TCP
  struct Connection;
  struct StreamOp {
    OVERLAPPED overlapped{};  // first: a completion hands back its address
    Connection* connection = nullptr;
    bool send = false;
    bool busy = false;  // the kernel holds it, or it waits in queued_
  };
  struct Connection {
    OverlappedSocket socket;
    uint32_t slot = 0;
    uint32_t index = 0;  // in connections_
    bool skips_port = false;
    bool open = true;  // false once the peer closed it or it failed
    MessageCounter requests;
    uint64_t unsent = 0;  // response bytes owed
    uint64_t bytes = 0;   // request bytes received, for its ConnectionStats
    std::string local, remote;
    std::unique_ptr<unsigned char[]> in;
    StreamOp receive, send;
  };
  // ---- UDP
  struct Endpoint;
  struct DatagramOp {
    OVERLAPPED overlapped{};  // first
    Endpoint* endpoint = nullptr;
    bool send = false;
    unsigned char* data = nullptr;  // the datagram received, or the answer to send
    sockaddr_storage peer{};        // where it came from, where the answer goes
    int peer_length = sizeof(sockaddr_storage);
    DWORD flags = 0;    // in and out of WSARecvFrom: must live as long as the operation
    DWORD request = 0;  // a send: the size of the request it answers
  };
  struct Endpoint {
    OverlappedSocket socket;
    uint32_t slot = 0;
    uint16_t port = 0;
    bool skips_port = false;
    bool open = true;
    bool seen_data = false;  // the first datagram starts the -N clock
    // A request received while every send slot was busy: answered once one is free, and only
    // then is the next receive started.
    bool parked = false;
    DWORD parked_bytes = 0;
    DatagramOp receive;
    std::vector<DatagramOp> sends;  // never resized: the kernel holds their addresses
    std::vector<DatagramOp*> idle_sends;
    std::unique_ptr<unsigned char[]> buffers;
  };

  void accepted(OverlappedSocket socket, const ListenerSet::Listener& listener);
  void post_stream_receive(StreamOp& op);
  // false when the connection closed or failed.
  bool take_requests(Connection& connection, DWORD bytes, int error);
  void kick_send(Connection& connection);
  void post_stream_send(StreamOp& op);
  void close_connection(Connection& connection, int error);
  void release(StreamOp& op);  // the op is done with; a closed connection goes after its last
  void on_stream_completion(const OVERLAPPED_ENTRY& entry);

  void post_datagram_receive(Endpoint& endpoint);
  // A request of `bytes` in endpoint.receive: answered (true), or parked for want of a slot.
  bool answer(Endpoint& endpoint, DWORD bytes);
  void on_datagram_completion(const OVERLAPPED_ENTRY& entry);
  void datagram_error(Endpoint& endpoint, const char* call, int error);

  void dispatch(const OVERLAPPED_ENTRY& entry);
  void hold_response() const;  // --rr-delay-us
  void shut_down();

  uint32_t request_ = 0, response_ = 0;
  bool udp_ = false;
  UdpRrGate gate_;  // UDP: who gets an answer, and how large
  SocketOptions options_;
  ListenerSet listeners_;
  std::vector<std::unique_ptr<Connection>> connections_;
  std::vector<uint32_t> free_;  // reusable indexes in connections_
  std::vector<std::unique_ptr<Endpoint>> endpoints_;
  std::unique_ptr<unsigned char[]> out_;  // TCP responses: bytes of 'A', shared
  ULONG out_size_ = 0;
  std::vector<StreamOp*> queued_;  // past the inline budget: go on next turn
  std::vector<StreamOp*> swap_;
  std::vector<Endpoint*> queued_endpoints_;
  std::vector<Endpoint*> swap_endpoints_;
};

}  // namespace xttcp::iocp
