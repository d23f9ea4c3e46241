// The iperf2 dialect's UDP server at the kernel-socket receivers (epoll, io_uring;
// docs/iperf2.md): iperf 2 names no flow in its datagrams, so a flow is its source (address and
// port). A stream ends with its FIN, after iperf2_silence_ns without a datagram, or when newer
// sources push it out of the socket's flow table (udp::DatagramAccounting); each is recorded with
// what it had, a bounded number per worker. A FIN is answered with the report datagram iperf 2's
// client waits for, within the accounting's report budget (docs/hostile-peers.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/backend/data_worker.hh"
#include "engine/iperf2/udp_datagram.hh"
#include "engine/net/address.hh"
#include "io_backends/common/udp_accounting.hh"
#include "io_backends/common/udp_flows.hh"

namespace xttcp {

// The flow id of a source: its port, and 15 bits of its address above (never compat_flow or
// retired_flow).
uint32_t iperf2_flow_of(const SocketAddress& source);

// A report's figures as a Result holds them.
Iperf2UdpStream iperf2_stream_figures(const iperf2::ServerReport& report);

// One per receiving worker in the iperf2 dialect; its calls run on the worker's thread.
class Iperf2UdpServer {
 public:
  // `sockets`: the worker's, for the records' bound.
  Iperf2UdpServer(const WorkerContext& context, std::size_t sockets);

  // After a datagram from `source` was accounted on `socket`: names a stream that began in the
  // flow registry (for the live -y C rows), answers its FIN if the budget allows, and records
  // every stream that ended.
  void after_datagram(UdpReceiverSocket& socket, const SocketAddress& source, WorkerReport& report);
  // Once per turn of the worker's loop: at most every quarter second, ends the streams silent
  // for iperf2_silence_ns on every socket and records them. Then the caller's flows are
  // announced (announce_ended) here.
  void sweep(std::vector<UdpReceiverSocket>& sockets, WorkerReport& report);
  // finish(): what ended otherwise than by a FIN, and what was not listed, as notes.
  void finish(WorkerReport& report) const;

 private:
  void serve_events(UdpReceiverSocket& socket, WorkerReport& report);
  void record(const udp::Iperf2StreamEvent& event, UdpReceiverSocket& socket, WorkerReport& report);
  // The local address a datagram from `source` came to (cached for the last source host).
  const std::string& local_endpoint(int fd, const SocketAddress& source);

  const WorkerContext& context_;
  uint64_t next_sweep_ns_ = 0;
  std::size_t max_records_;
  uint64_t recorded_ = 0, unlisted_ = 0, silent_ = 0, evicted_ = 0;
  std::string cached_host_, cached_local_;
  int cached_fd_ = -1;
};

}  // namespace xttcp
