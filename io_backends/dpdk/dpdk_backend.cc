#include "io_backends/dpdk/dpdk_backend.hh"

#include <algorithm>

#include <fmt/format.h>
#include <rte_cycles.h>

#include "io_backends/dpdk/dpdk_receiver.hh"
#include "io_backends/dpdk/dpdk_rr_requester.hh"
#include "io_backends/dpdk/dpdk_rr_responder.hh"
#include "io_backends/dpdk/dpdk_sender.hh"
#include "io_backends/dpdk/runtime.hh"
#include "xttcp_config.h"

namespace xttcp {

namespace {

class DpdkBackend final : public Backend {
 public:
  std::string_view name() const override { return "dpdk"; }
  std::string_view description() const override {
    return "UDP frames on a DPDK port, kernel bypass (poll mode)";
  }
  // The EAL starts only when a run asks for it (--dpdk-args), so ports are unknown here.
  Availability probe() const override {
    if (dpdk::Runtime::instance().initialised())
      return {true, "libdpdk " XTTCP_DPDK_VERSION "; ports: " +
                        dpdk::Runtime::instance().describe_ports()};
    return {true, "libdpdk " XTTCP_DPDK_VERSION
                  "; ports: 'xttcp backends "
                  "--dpdk-args \"...\"' lists them"};
  }
  uint32_t capabilities() const override {
    return cap_udp | cap_raw_frames | cap_queue_binding | cap_busy_poll | cap_count_mode;
  }
  Status check(const TestSpec& spec) const override {
    if (spec.workload.protocol != Protocol::udp)
      return fail("--backend dpdk: UDP only (add -u); TCP stays on the kernel's stack");
    if (spec.workload.udp_payload == UdpPayload::iperf2)  // io_backends/common/iperf2_udp_*
      return fail(
          "the iperf2 dialect: the dpdk backend does not write or read iperf 2's datagram head "
          "(Linux epoll and io_uring do)");
    if (!spec.dpdk.peer_mac.empty())
      if (auto mac = frame::parse_mac(spec.dpdk.peer_mac); !mac)
        return fail("--peer-mac: " + mac.error().message);
    return ok();  // its own frames, no kernel sockets: none of the socket options
  }
  std::string_view instead() const override { return "use --backend epoll"; }
  std::string auto_refusal(const TestSpec&) const override {
    return "kernel bypass is asked for by name (--backend dpdk)";
  }
  Expected<std::unique_ptr<DataWorker>> make_worker(const WorkerContext& context) override {
    const TestSpec& spec = *context.spec;
    // Control path, once per process (later workers get the first outcome).
    if (Status eal = dpdk::Runtime::instance().init(spec.dpdk.args); !eal) return eal.error();
    // One RX/TX queue pair per worker of this role (the port keeps what the first role asked:
    // --local runs both roles on one port).
    dpdk::PortRequest request;
    request.queues = static_cast<uint16_t>(std::clamp<uint32_t>(context.worker_count, 1, 1024));
    // A requester also takes its responses into mbufs of this room.
    const uint32_t largest_datagram =
        spec.rr.on
            ? std::max(spec.workload.send_buffer, spec.rr.response_bytes(spec.workload.send_buffer))
            : spec.workload.send_buffer;
    if (spec.role == Role::sender)
      request.send_frame = static_cast<uint32_t>(std::max<std::size_t>(
          frame::headers_size(spec.layout.ipv6) + largest_datagram, frame::min_frame_bytes));
    auto port = dpdk::Runtime::instance().port(spec.dpdk.port, request);
    if (!port) return port.error();
    if (spec.rr.on && spec.role == Role::sender)
      return std::unique_ptr<DataWorker>(std::make_unique<dpdk::DpdkRrRequester>(context, **port));
    if (spec.rr.on)
      return std::unique_ptr<DataWorker>(std::make_unique<dpdk::DpdkRrResponder>(context, **port));
    if (spec.role == Role::sender)
      return std::unique_ptr<DataWorker>(std::make_unique<dpdk::DpdkUdpSender>(context, **port));
    return std::unique_ptr<DataWorker>(std::make_unique<dpdk::DpdkUdpReceiver>(context, **port));
  }
  // The first started port (a run drives one): its counters and xttcp's per-queue counts.
  std::optional<DeviceSnapshot> device_snapshot() const override {
    if (!dpdk::Runtime::instance().initialised()) return std::nullopt;
    const std::vector<dpdk::Port*> ports = dpdk::Runtime::instance().started_ports();
    if (ports.empty()) return std::nullopt;
    const dpdk::Port& port = *ports.front();
    DeviceSnapshot snapshot;
    snapshot.device = port.name;
    snapshot.driver = port.driver;
    snapshot.tsc_hz = rte_get_tsc_hz();
    snapshot.pollers = port.pollers.load();
    for (uint16_t q = 0; q < port.queues; ++q) {
      const dpdk::QueueCounters& c = port.counters[q];
      snapshot.queues.push_back({c.tx_frames.load(std::memory_order_relaxed),
                                 c.tx_bytes.load(std::memory_order_relaxed),
                                 c.rx_frames.load(std::memory_order_relaxed),
                                 c.rx_bytes.load(std::memory_order_relaxed)});
    }
    snapshot.counters = dpdk::read_counters(port.id);
    snapshot.description = port.description;
    snapshot.tsc = rte_rdtsc();
    return snapshot;
  }
  std::vector<std::string> devices(const TestSpec& spec) const override {
    if (spec.dpdk.args.empty()) return {};
    if (Status eal = dpdk::Runtime::instance().init(spec.dpdk.args); !eal)
      return {eal.error().message};
    return dpdk::Runtime::instance().port_details();
  }
};

}  // namespace

std::unique_ptr<Backend> make_dpdk_backend() { return std::make_unique<DpdkBackend>(); }

}  // namespace xttcp
