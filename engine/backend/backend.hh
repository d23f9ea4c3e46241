// The backend contract (docs/architecture.md), owned by the engine: io_backends/ implements it,
// the engine runs whatever implements it and never asks which one it is. A backend is chosen and
// checked against the spec once per run, by the tools layer (io_backends/registry.hh). Its
// control path is virtual (probe, capabilities, check, make a worker, device counters); its data
// path is each worker's own loop (engine/backend/data_worker.hh).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.hh"
#include "engine/backend/data_worker.hh"
#include "engine/spec.hh"
#include "engine/stats/device_window.hh"

namespace xttcp {

// What a backend can do, as flags, so the engine asks for a feature and never for a name.
enum Capability : uint32_t {
  cap_tcp = 1u << 0,
  cap_udp = 1u << 1,
  cap_zerocopy_tx = 1u << 2,
  cap_multishot_rx = 1u << 3,
  cap_queue_binding = 1u << 4,
  cap_busy_poll = 1u << 5,
  cap_raw_frames = 1u << 6,  // its own frames on its own port: addresses unknown to the kernel
  // Options of the spec the data path honours. Every backend is held to them in one place
  // (check_backend_options, engine/backend/option_check.hh): what it lacks is refused.
  cap_socket_buffers = 1u << 7,     // io.socket_*_buffer (-rb / -sb): SO_RCVBUF / SO_SNDBUF
  cap_verify_data = 1u << 8,        // workload.verify_data (-d, receiver): every byte is 'A'
  cap_wait_all = 1u << 9,           // io.wait_all (-wa, receiver): MSG_WAITALL receives
  cap_thread_rate = 1u << 10,       // workload.thread_rate_kBps (-thr, sender)
  cap_udp_unconnected = 1u << 11,   // io.udp_unconnected (-uc): sendto/recvfrom
  cap_count_mode = 1u << 12,        // workload.buffer_count (-n): each sender flow stops after N
                                    // buffers and closes; the receiver counts the closes
  cap_several_hosts = 1u << 13,     // layout.mappings towards (or bound to) different hosts:
                                    // each flow connects to / listens on its own (flow_address)
  cap_call_timing = 1u << 14,       // io.time_each_call (-lm): each send/recv call timed
  cap_udp_send_offload = 1u << 15,  // io.udp_send_offload (-uso, sender): one send split
                                    // into datagrams of the size asked
  cap_udp_receive_coalescing = 1u << 16,  // io.udp_receive_coalescing (-uro, receiver): UDP_GRO
  cap_peer_filter = 1u << 17,  // a receiver asks WorkerContext::admission about every peer
  cap_count_reads = 1u << 18,  // io.count_reads (TCP receiver): each connection's reads by size
  // layout.one_port (the iperf3 dialect): TCP connections the control plane made, served as
  // they are given (WorkerContext::adopted) instead of listening or connecting.
  cap_adopted_connections = 1u << 19,
};
// "tcp,udp,zerocopy-tx", or "-" for none ('xttcp backends').
std::string describe_capabilities(uint32_t caps);

struct Availability {
  bool available = false;
  std::string reason;  // why not, or what was found ("" if nothing); never "available"
};

class Backend {
 public:
  virtual ~Backend() = default;
  // Mandatory: the name --backend takes ("epoll") and one line for 'xttcp backends'.
  virtual std::string_view name() const = 0;
  virtual std::string_view description() const = 0;
  // Mandatory: "available" or the exact reason not.
  virtual Availability probe() const = 0;
  // Mandatory: Capability flags.
  virtual uint32_t capabilities() const = 0;
  // NULL if nothing special to check (the default accepts): refuses, before anything starts, a
  // spec this backend cannot run, in one line naming the option and the missing feature, beyond
  // what its capabilities() already refuse (check_backend_options). Called once per run, when the
  // backend is chosen (accepts()); make_worker() may rely on it having passed.
  virtual Status check(const TestSpec& spec) const {
    (void)spec;
    return ok();
  }
  // NULL if none (the default): where the options this backend lacks are honoured, for its
  // refusals, e.g. "use --backend epoll".
  virtual std::string_view instead() const { return {}; }
  // Mandatory: a worker for one WorkerPlan, for a spec check() accepted. The context outlives the
  // worker. Runs on the worker's own (pinned) thread.
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

// The backend a run uses, chosen and checked against the spec once, before anything starts, by
// the tools layer (io_backends/registry.hh: choose_backend), and handed down; the engine never
// chooses again.
struct BackendChoice {
  Backend& backend;
  // With --backend auto: why it passed over the backends it prefers, e.g. "--backend auto runs
  // epoll: -lm: the io_uring backend does not time each send/recv call (use --backend epoll)";
  // "" when it passed over none for an option, or the backend was named.
  std::string auto_note;
  // With --backend auto: taken because calibrate measured it fastest for this workload's shape
  // on this host (the tools layer's record), not by the preference order.
  bool measured = false;
};

}  // namespace xttcp
