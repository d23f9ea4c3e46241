// Opening a worker's UDP sockets, shared by the kernel-socket backends (control path): one
// connected socket per sender flow with its counters and GSO, or one bound socket per receiver
// port with its accounting and GRO.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "base/unique_fd.hh"
#include "engine/backend/data_worker.hh"
#include "engine/udp/end_marker.hh"
#include "io_backends/common/udp_accounting.hh"

namespace xttcp {

struct UdpSenderFlow {
  UniqueFd fd;
  SocketAddress remote;   // where its datagrams go (named in every send with -uc)
  bool connected = true;  // false with -uc: sendto/sendmmsg with the address
  uint32_t slot = 0;
  uint32_t flow_id = 0;        // context.udp_flow_base | slot, in every native header
  uint16_t token = 0;          // context.udp_flow_token, in every native header
  uint64_t next_sequence = 0;  // datagrams sent (native headers carry its low 32 bits)
  udp::UdpFlowCounters* counters = nullptr;
  bool closed = false;
  // Count mode (-n): data datagrams still to send (no budget: never reaches 0), then the end
  // markers, sent by send_due_end_marker().
  uint64_t left = UINT64_MAX;
  udp::EndMarkerSchedule end;
};

struct UdpSenderSockets {
  std::vector<UdpSenderFlow> flows;
  uint32_t gso_segments = 0;  // datagrams per GSO send on every socket; 0 = no GSO
};

// One socket per flow of the worker, connected (-a/-f/--fq-rate-limit applied), non-blocking
// unless `blocking`; GSO set when it pays (choose_gso). With -uc (spec.io.udp_unconnected)
// the sockets stay unconnected and get no GSO: every send names its flow's `remote`. Notes (why
// no GSO) go to `notes`. `adopted` (layout.one_port: the connected sockets the control plane
// made, one per flow in plan order) are used instead of new sockets.
Expected<UdpSenderSockets> open_udp_sender_flows(const WorkerContext& context, bool blocking,
                                                 std::vector<std::string>& notes,
                                                 std::vector<UniqueFd> adopted = {});

struct UdpReceiverSocket {
  UniqueFd fd;
  uint32_t slot = 0;
  bool armed = false;              // io_uring: a multishot receive is live
  bool seen_data = false;          // the first datagram starts the -N clock
  bool header_only = false;        // read with MSG_TRUNC into a header-sized buffer
  bool armed_header_only = false;  // io_uring: the live receive reads into header buffers
  uint32_t uncoalesced = 0;        // large datagrams in a row that GRO did not coalesce
  std::unique_ptr<UdpSocketAccounting> accounting;
};

struct UdpReceiverSockets {
  std::vector<UdpReceiverSocket> sockets;
  bool gro = false;  // UDP_GRO on every socket
};

// Count mode: sends `flow`'s next end marker if one is due at `now_ns` (never blocks). `sent`:
// the flow's data datagrams; `compat_data`: they had no native header. Returns 0, EAGAIN (the
// socket is full: try again later) or the errno of a failed send. A refused send (ICMP port
// unreachable, about an earlier datagram) counts as sent, so the ending stays bounded.
int send_due_end_marker(UdpSenderFlow& flow, uint64_t sent, bool compat_data, uint64_t now_ns);

// Count mode: `flow` has sent its N datagrams; it sends no more data, its end markers follow.
inline void begin_end_markers(UdpSenderFlow& flow, uint32_t& ending) {
  flow.closed = true;
  flow.end.begin(monotonic_ns());
  ++ending;
}

// Count mode, once per turn of a sender's loop: sends every ending flow's due marker. A flow
// whose markers are all out goes to `done(flow)`; a failed send to `failed(text)`, and its flow
// sends no more markers. `ending` counts the flows still sending them. Returns the ns until the
// next marker is due (at least 1 ms when a socket was full), 0 when none is pending.
template <class Flow, class Done, class Failed>
uint64_t send_end_markers(std::vector<Flow>& flows, uint64_t sent, bool compat_data,
                          uint32_t& ending, Done&& done, Failed&& failed) {
  const uint64_t now = monotonic_ns();
  uint64_t next = 0;
  for (Flow& flow : flows) {
    if (!flow.end.begun() || flow.end.finished()) continue;
    const int err = send_due_end_marker(flow, sent, compat_data, now);
    if (err != 0 && err != EAGAIN) {
      failed(std::string("UDP send of an end marker: ") + std::strerror(err));
      flow.end.finish_now();
    }
    if (flow.end.finished()) {
      --ending;
      done(flow);
      continue;
    }
    const uint64_t wait = std::max<uint64_t>(flow.end.wait_ns(now), 1'000'000);
    next = next == 0 ? wait : std::min(next, wait);
  }
  return next;
}

// One bound socket per port of the worker, non-blocking unless `blocking`, with UDP_GRO when
// --udp-gro asks and the kernel takes it; or the `adopted` ones (layout.one_port: connected
// sockets the control plane made, one per flow in plan order).
Expected<UdpReceiverSockets> open_udp_receiver_sockets(const WorkerContext& context, bool blocking,
                                                       std::vector<std::string>& notes,
                                                       std::vector<UniqueFd> adopted = {});

// How the run's datagrams are laid out (spec.workload.udp_payload), for their accounting.
udp::DatagramLayout datagram_layout(const TestSpec& spec);

}  // namespace xttcp
