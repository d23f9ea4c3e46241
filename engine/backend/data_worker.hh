// The data half of the backend contract (docs/architecture.md): one DataWorker per WorkerPlan,
// made by Backend::make_worker() and run on the engine's pinned thread. The engine hands it a
// WorkerContext and reads back a WorkerReport; the worker's loop (run()) is entered once per run
// and has no virtual call, lock or allocation per buffer inside it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/status.hh"
#include "engine/backend/connection_inbox.hh"
#include "engine/net/address.hh"
#include "engine/net/peer_admission.hh"
#include "engine/net/socket_io.hh"
#include "engine/plan.hh"
#include "engine/result.hh"
#include "engine/spec.hh"
#include "engine/stats/connection_watch.hh"
#include "engine/stats/counters.hh"
#include "engine/stats/latency_histogram.hh"

namespace xttcp {

namespace udp {
class UdpFlowRegistry;
}

// The contract's bound on how late a worker sees `stop`: no wait in a data loop lasts longer.
inline constexpr std::chrono::milliseconds stop_check_interval{100};

// A connection (TCP) or flow socket (UDP) a sender worker opened, for -V's "New connection"
// lines. Control path.
struct OpenedConnection {
  uint16_t local_port = 0;
  int64_t socket = -1;  // the OS's number for it: the fd (a SOCKET handle on Windows)
  SocketAddress remote;
  bool udp = false;
  uint32_t slot = 0;  // its FlowPlan::slot
};

// What a worker needs from the engine. Owned by the engine; outlives the worker.
struct WorkerContext {
  const TestSpec* spec = nullptr;
  const WorkerPlan* plan = nullptr;
  SocketAddress local;   // receiver: bind address (port set per flow); sender: -a source or any
  SocketAddress remote;  // sender: receiver address (port set per flow)
  // Plan::hosts resolved (ports unset), indexed by FlowPlan::host: the sender's destinations,
  // the receiver's bind addresses. Empty = every flow uses `remote` (sender) / `local` (receiver).
  // Read through flow_address().
  std::vector<SocketAddress> hosts;
  FlowCounter* counters = nullptr;  // indexed by FlowPlan::slot
  // Called by a receiver worker each time it accepts a data connection (-N starts the
  // receiver's clock at the first one). Control path; may be empty.
  std::function<void()> on_accept;
  // Called by a TCP receiver worker for each data connection it accepts and serves (after
  // --allow), with the peer and the local (data) port: the Windows dialect's token ports take a
  // thread's token only from its data connection's host. Control path; may be empty (then no
  // peer address need be read).
  std::function<void(const SocketAddress& peer, uint16_t port)> on_data_connection;
  // Called by a worker with a line the user must read now rather than at the end of the run
  // (a listener resting for want of descriptors: an error; accepting again: not). Any thread;
  // the engine rate-limits the lines. Control path; may be empty.
  std::function<void(std::string_view line, bool error)> on_notice;
  // Count mode (-n, flow_send_budget() > 0 on a sender): called once per flow, by a sender when
  // the flow has sent its whole budget and shut down its sending side, by a receiver when a
  // connection ended (closed in order, reset by the peer, or failed: it brings no more). The
  // engine ends the test when every flow is done. Control path; may be empty.
  std::function<void()> on_flow_done;
  // Connections open right now: a sender adds each one it connects and removes each one the peer
  // closes, so the engine can tell a receiver that went away. Engine-owned; may be null.
  std::atomic<int64_t>* open_connections = nullptr;
  // UDP runs: the per-flow datagram counters (engine-owned). A sender numbers its flows
  // udp_flow_base | slot in the native header; the base tells concurrent senders (-M) apart.
  // Every native datagram and end marker also carries udp_flow_token, which the receiver
  // checks against the sender's declaration (udp/flow_admission.hh).
  udp::UdpFlowRegistry* udp_flows = nullptr;
  uint32_t udp_flow_base = 0;
  uint16_t udp_flow_token = 0;
  // How many workers this role runs (plan.workers.size()): a backend that shares one device
  // between them (dpdk: one queue each) needs to know.
  uint32_t worker_count = 1;
  // -lm (NTttcp for Windows): the engine's current latency period (see FlowCounter), for a
  // CallTimer that times every send/recv call; null when -lm is off.
  const std::atomic<uint64_t>* latency_period = nullptr;
  // --rr: one round-trip histogram per flow, indexed by FlowPlan::slot (engine-owned; the
  // requester records each transaction's round trip into its flow's); null without --rr.
  LatencyHistogram* rr_histograms = nullptr;
  // NULL if not wanted: this worker's own list (engine-owned); a sender's open() appends every
  // connection it made, once made (record_opened). The engine reads it after every worker
  // opened.
  std::vector<OpenedConnection>* opened = nullptr;
  // Receivers of backends with cap_peer_filter: asked about each accepted connection (refused:
  // close it at once, count nothing) and, with --allow, each datagram's source. Null or open()
  // = everyone (then no source address need be read). Engine-owned.
  PeerAdmission* admission = nullptr;
  // Ctrl+C: a sender's open() (connecting, retrying refused connects) gives up within 100 ms
  // when it turns true. Null: never. Engine-owned.
  const std::atomic<bool>* interrupted = nullptr;
  // Shared by a sender's workers: set by the first that saw a connect refused, which says so at
  // once (the retries that follow are silent until --connect-timeout). Engine-owned.
  std::atomic<bool>* refusal_said = nullptr;
  // Senders with --auth-key: written first on every TCP connection, as soon as it is connected
  // (sync_auth.hh's preamble); empty otherwise. Engine-owned.
  std::vector<unsigned char> connection_preamble;
  // TCP streams: the connections whose TCP_INFO the engine reads at every interval. A worker
  // adds each connection it opens or accepts (watch_connection) and removes it before closing
  // its socket (unwatch_connection). Engine-owned; null = not wanted.
  ConnectionWatch* connection_watch = nullptr;
  // layout.one_port: the TCP connections the control plane made for this worker's flows, in
  // the order of plan->flows (one each), already connected and past their preamble (the iperf3
  // dialect's cookie). The worker owns them from its construction (make_worker): it closes
  // them whatever fails; open() serves them instead of listening or connecting. Empty
  // otherwise.
  std::vector<NativeSocket> adopted;
  // layout.one_port, receivers: where the connections the sync listener admits arrive while the
  // worker runs (it opens no listener; it waits on inbox->pollable() beside its connections).
  // Engine-owned; null otherwise.
  ConnectionInbox* inbox = nullptr;
};

// A TCP connection just opened as `socket`, counting into flow `slot`: its watch id (keep it for
// unwatch_connection). With io.count_reads, `*tally` is where a receiver counts its receives
// (ReadSizeBinning; valid until unwatch_connection), else null. Control path.
inline uint32_t watch_connection(const WorkerContext& context, NativeSocket socket, uint32_t slot,
                                 StreamTally** tally = nullptr) {
  if (tally != nullptr) *tally = nullptr;
  return context.connection_watch ? context.connection_watch->add(socket, slot, tally)
                                  : ConnectionWatch::not_watched;
}
// Before closing a watched connection's socket. Control path.
inline void unwatch_connection(const WorkerContext& context, uint32_t& id) {
  if (context.connection_watch) context.connection_watch->remove(id);
  id = ConnectionWatch::not_watched;
}

// True when `context` wants every datagram's source checked (--allow on a UDP receiver).
inline bool filters_datagrams(const WorkerContext& context) {
  return context.admission != nullptr && !context.admission->filter().empty();
}

// A data connection just accepted from `peer` as `socket`: serve it? Not when it took one of the
// descriptors kept for the sync port (a notice says so, rate-limited); with --allow,
// --max-clients or --auth-key the admission decides (the preamble is read here: the listener
// deferred the accept until it came). Control path (backend.cc).
bool admit_data_connection(const WorkerContext& context, const SocketAddress& peer,
                           NativeSocket socket);

// --auth-key: listeners hold a connection back until its first bytes (the preamble) came.
inline bool defers_accept(const WorkerContext& context) {
  return context.admission != nullptr && context.admission->sessions_required();
}

// A TCP data connection on `socket` was accepted and is served: WorkerContext::on_data_connection
// is told its peer and local (data) port, asked of the socket only when someone wants to know.
// Control path.
inline void report_data_connection(const WorkerContext& context, NativeSocket socket) {
  if (!context.on_data_connection) return;
  auto peer = peer_address_of(socket);
  auto local = local_address_of(socket);
  if (peer && local) context.on_data_connection(*peer, local->port());
}

// Appends `socket` of flow `slot`, connected to `remote`, to context.opened (if wanted).
// Control path.
inline void record_opened(const WorkerContext& context, NativeSocket socket,
                          const SocketAddress& remote, bool udp, uint32_t slot) {
  if (context.opened == nullptr) return;
  auto local = local_address_of(socket);
  context.opened->push_back(OpenedConnection{local ? local->port() : uint16_t{0},
                                             static_cast<int64_t>(socket), remote, udp, slot});
}

// Where `flow` connects (sender) or listens (receiver): its host with its port. Control path.
inline SocketAddress flow_address(const WorkerContext& context, const FlowPlan& flow) {
  SocketAddress address = flow.host < context.hosts.size()     ? context.hosts[flow.host]
                          : context.spec->role == Role::sender ? context.remote
                                                               : context.local;
  address.set_port(flow.port);
  return address;
}

// Counts a worker keeps about its connections, read after run() returns.
struct WorkerReport {
  uint32_t connections = 0;     // connections opened (sender) or accepted (receiver)
  uint32_t closed_by_peer = 0;  // orderly EOF or reset while running
  uint32_t errors = 0;          // I/O errors other than the peer going away
  std::string first_error;      // the first such error, for the log
  std::vector<ConnectionStats> connection_stats;  // TCP_INFO at the end (TCP only)
  std::vector<std::string> notes;  // one line each, e.g. "zero-copy fell back to plain send"
  uint64_t rr_lost = 0;            // --rr over UDP: requests that got no response (whole run)
};

class DataWorker {
 public:
  virtual ~DataWorker() = default;

  // Mandatory. Control path: create the worker's sockets (listen, or connect every flow),
  // blocking, bounded by spec.control.connect_timeout_s. Runs on the worker's own (pinned) thread.
  virtual Status open() = 0;

  // Mandatory. Data path: the worker's loop. Sender: send full buffers on every connection;
  // receiver: accept and count. Returns soon (<= 100 ms) after `stop` becomes true.
  virtual void run(const std::atomic<bool>& stop) = 0;

  // Mandatory. Control path, after run() returned: counts and per-connection statistics.
  virtual WorkerReport finish() = 0;
};

}  // namespace xttcp
