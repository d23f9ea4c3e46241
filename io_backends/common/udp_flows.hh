// Opening a worker's UDP sockets, shared by the kernel-socket backends (control path): one
// connected socket per sender flow with its counters and GSO, or one bound socket per receiver
// port with its accounting and GRO.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/net/unique_fd.hh"
#include "io_backends/backend.hh"
#include "io_backends/common/udp_accounting.hh"

namespace xttcp {

struct UdpSenderFlow {
  UniqueFd fd;
  uint32_t slot = 0;
  uint32_t flow_id = 0;  // context.udp_flow_base | slot, in every native header
  uint32_t next_sequence = 0;
  udp::UdpFlowCounters* counters = nullptr;
  bool closed = false;
};

struct UdpSenderSockets {
  std::vector<UdpSenderFlow> flows;
  uint32_t gso_segments = 0;  // datagrams per GSO send on every socket; 0 = no GSO
};

// One socket per flow of the worker, connected (-a/-f/--fq-rate-limit applied), non-blocking
// unless `blocking`; GSO set when it pays (choose_gso). Notes (why no GSO) go to `notes`.
Expected<UdpSenderSockets> open_udp_sender_flows(const WorkerContext& context, bool blocking,
                                                 std::vector<std::string>& notes);

struct UdpReceiverSocket {
  UniqueFd fd;
  uint32_t slot = 0;
  bool armed = false;      // io_uring: a multishot receive is live
  bool seen_data = false;  // the first datagram starts the -N clock
  bool header_only = false;  // read with MSG_TRUNC into a header-sized buffer
  bool armed_header_only = false;  // io_uring: the live receive reads into header buffers
  uint32_t uncoalesced = 0;  // large datagrams in a row that GRO did not coalesce
  std::unique_ptr<UdpSocketAccounting> accounting;
};

struct UdpReceiverSockets {
  std::vector<UdpReceiverSocket> sockets;
  bool gro = false;  // UDP_GRO on every socket
};

// One bound socket per port of the worker, non-blocking unless `blocking`, with UDP_GRO when
// --udp-gro asks and the kernel takes it.
Expected<UdpReceiverSockets> open_udp_receiver_sockets(const WorkerContext& context, bool blocking,
                                                       std::vector<std::string>& notes);

}  // namespace xttcp
