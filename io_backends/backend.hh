// The backend contract (DESIGN.md): a backend is chosen once per run. Its control path is
// virtual (probe, capabilities, make a worker, open, tear down); its data path is the worker's own
// loop, entered once per run through DataWorker::run(), with no virtual call, lock or allocation
// per buffer inside it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/net/address.hh"
#include "engine/net/socket_io.hh"
#include "engine/plan.hh"
#include "engine/result.hh"
#include "engine/spec.hh"
#include "engine/stats/counters.hh"
#include "engine/stats/device_window.hh"
#include "engine/status.hh"

namespace xttcp {

namespace udp {
class UdpFlowRegistry;
}

// The contract's bound on how late a worker sees `stop`: no wait in a data loop lasts longer.
inline constexpr std::chrono::milliseconds stop_check_interval{100};

enum Capability : uint32_t {
  cap_tcp = 1u << 0,
  cap_udp = 1u << 1,
  cap_zerocopy_tx = 1u << 2,
  cap_multishot_rx = 1u << 3,
  cap_queue_binding = 1u << 4,
  cap_busy_poll = 1u << 5,
  cap_raw_frames = 1u << 6,
};
std::string describe_capabilities(uint32_t caps);

struct Availability {
  bool available = false;
  std::string reason;  // why not, or a note on what was found
};

// A connection (TCP) or flow socket (UDP) a sender worker opened, for -V's "New connection"
// lines. Control path.
struct OpenedConnection {
  uint16_t local_port = 0;
  int64_t socket = -1;  // the OS's number for it: the fd (a SOCKET handle on Windows)
  SocketAddress remote;
  bool udp = false;
};

// What a worker needs from the engine. Owned by the engine; outlives the worker.
struct WorkerContext {
  const TestSpec* spec = nullptr;
  const WorkerPlan* plan = nullptr;
  SocketAddress local;    // receiver: bind address (port set per flow); sender: -a source or any
  SocketAddress remote;   // sender: receiver address (port set per flow)
  // Plan::hosts resolved (ports unset), indexed by FlowPlan::host: the sender's destinations,
  // the receiver's bind addresses. Empty = every flow uses `remote` (sender) / `local` (receiver).
  // Read through flow_address().
  std::vector<SocketAddress> hosts;
  FlowCounter* counters = nullptr;  // indexed by FlowPlan::slot
  // Called by a receiver worker each time it accepts a data connection (-N starts the
  // receiver's clock at the first one). Control path; may be empty.
  std::function<void()> on_accept;
  // Count mode (-n, flow_send_budget() > 0 on a sender): called once per flow, by a sender when
  // the flow has sent its whole budget and shut down its sending side, by a receiver when the
  // peer closed a connection in order. The engine ends the test when every flow is done.
  // Control path; may be empty.
  std::function<void()> on_flow_done;
  // Connections open right now: a sender adds each one it connects and removes each one the peer
  // closes, so the engine can tell a receiver that went away. Engine-owned; may be null.
  std::atomic<int64_t>* open_connections = nullptr;
  // UDP runs: the per-flow datagram counters (engine-owned). A sender numbers its flows
  // udp_flow_base | slot in the native header; the base tells concurrent senders (-M) apart.
  udp::UdpFlowRegistry* udp_flows = nullptr;
  uint32_t udp_flow_base = 0;
  // How many workers this role runs (plan.workers.size()): a backend that shares one device
  // between them (dpdk: one queue each) needs to know.
  uint32_t worker_count = 1;
  // -lm (NTttcp for Windows): the engine's current latency period (see FlowCounter), for a
  // CallTimer that times every send/recv call; null when -lm is off.
  const std::atomic<uint64_t>* latency_period = nullptr;
  // NULL if not wanted: this worker's own list (engine-owned); a sender's open() appends every
  // connection it made, once made (record_opened). The engine reads it after every worker
  // opened.
  std::vector<OpenedConnection>* opened = nullptr;
};

// Appends `socket`, connected to `remote`, to context.opened (if wanted). Control path.
inline void record_opened(const WorkerContext& context, NativeSocket socket,
                          const SocketAddress& remote, bool udp) {
  if (context.opened == nullptr) return;
  auto local = local_address_of(socket);
  context.opened->push_back(OpenedConnection{local ? local->port() : uint16_t{0},
                                             static_cast<int64_t>(socket), remote, udp});
}

// Where `flow` connects (sender) or listens (receiver): its host with its port. Control path.
inline SocketAddress flow_address(const WorkerContext& context, const FlowPlan& flow) {
  SocketAddress address = flow.host < context.hosts.size() ? context.hosts[flow.host]
                          : context.spec->role == Role::sender ? context.remote
                                                                : context.local;
  address.set_port(flow.port);
  return address;
}

// Counts a worker keeps about its connections, read after run() returns.
struct WorkerReport {
  uint32_t connections = 0;       // connections opened (sender) or accepted (receiver)
  uint32_t closed_by_peer = 0;    // orderly EOF or reset while running
  uint32_t errors = 0;            // I/O errors other than the peer going away
  std::string first_error;        // the first such error, for the log
  std::vector<ConnectionStats> connection_stats;  // TCP_INFO at the end (TCP only)
  std::vector<std::string> notes;  // one line each, e.g. "zero-copy fell back to plain send"
};

class DataWorker {
 public:
  virtual ~DataWorker() = default;

  // Mandatory. Control path: create the worker's sockets (listen, or connect every flow),
  // blocking, bounded by spec.connect_timeout_s. Runs on the worker's own (pinned) thread.
  virtual Status open() = 0;

  // Mandatory. Data path: the worker's loop. Sender: send full buffers on every connection;
  // receiver: accept and count. Returns soon (<= 100 ms) after `stop` becomes true.
  virtual void run(const std::atomic<bool>& stop) = 0;

  // Mandatory. Control path, after run() returned: counts and per-connection statistics.
  virtual WorkerReport finish() = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view description() const = 0;
  // Mandatory: "available" or the exact reason not.
  virtual Availability probe() const = 0;
  virtual uint32_t capabilities() const = 0;
  // NULL if nothing special to check (the default accepts): refuses, before anything starts, a
  // spec this backend cannot run, in one line naming the option and the missing feature.
  virtual Status check(const TestSpec& spec) const {
    (void)spec;
    return ok();
  }
  // Mandatory: a worker for one WorkerPlan. The context outlives the worker.
  virtual Expected<std::unique_ptr<DataWorker>> make_worker(const WorkerContext& context) = 0;
  // Whether `--backend auto` should take this backend for `spec` (it is fast here, not merely
  // available). The default: no. Empty reason when yes; else why not, for 'xttcp backends'.
  virtual std::string auto_refusal(const TestSpec& spec) const {
    (void)spec;
    return "not a default choice";
  }
  // NULL if the backend drives no device of its own (the default): the counters of the device
  // it drives (dpdk: the port's rte_eth_stats, xstats and its own per-queue counts), read by the
  // engine at the phase edges. Control path; nullopt before a worker started the device.
  virtual std::optional<DeviceSnapshot> device_snapshot() const { return std::nullopt; }
  // NULL if nothing to list: the devices this backend would drive with `spec`'s options (dpdk:
  // the EAL's ports from --dpdk-args), one line each, for 'xttcp backends'.
  virtual std::vector<std::string> devices(const TestSpec& spec) const {
    (void)spec;
    return {};
  }
};

// Every backend compiled into this binary, in order of preference (backend_table_<os>.cc).
const std::vector<std::unique_ptr<Backend>>& all_backends();
// Backends this OS could have but this binary lacks, with the reason, for 'xttcp backends'.
struct AbsentBackend {
  std::string name;
  std::string reason;
};
std::vector<AbsentBackend> absent_backends();
// The named backend if compiled in and available, else a one-line reason.
Expected<Backend*> find_backend(std::string_view name);
// What runs `spec`: its --backend by name, or for "auto" the first backend in preference order
// whose auto_refusal() is empty and which accepts the spec, else fallback_backend() (epoll on
// Linux, iocp on Windows). Checks the spec against the backend (Backend::check) either way.
Expected<Backend*> select_backend(const TestSpec& spec);
// With --backend auto: the backends auto would have preferred to `chosen` but that refuse one of
// the spec's options, e.g. "--backend auto runs epoll: -lm: the io_uring backend does not time
// calls (use --backend epoll)"; "" when none was passed over for an option (or not auto).
std::string auto_choice_note(const TestSpec& spec, const Backend& chosen);
inline constexpr std::string_view auto_backend = "auto";
// What `auto` takes when no backend asks for the spec; "" when this build has none.
std::string_view fallback_backend();

}  // namespace xttcp
