#include "io_backends/dpdk/dpdk_backend.hh"

#include <algorithm>
#include <thread>

#include <fmt/format.h>

#include "io_backends/dpdk/dpdk_receiver.hh"
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
      return {true, "available (libdpdk " XTTCP_DPDK_VERSION "); ports: " +
                        dpdk::Runtime::instance().describe_ports()};
    return {true, "available (libdpdk " XTTCP_DPDK_VERSION "); ports appear with --dpdk-args"};
  }
  uint32_t capabilities() const override {
    return cap_udp | cap_raw_frames | cap_queue_binding | cap_busy_poll;
  }
  Status check(const TestSpec& spec) const override {
    if (spec.protocol != Protocol::udp)
      return fail("--backend dpdk: UDP only (add -u); TCP stays on the kernel's stack");
    if (spec.ipv6) return fail("--backend dpdk: IPv4 only for now (drop -6)");
    if (!spec.peer_mac.empty())
      if (auto mac = frame::parse_mac(spec.peer_mac); !mac) return fail("--peer-mac: " + mac.error().message);
    return ok();
  }
  std::string auto_refusal(const TestSpec&) const override {
    return "kernel bypass is asked for by name (--backend dpdk)";
  }
  Expected<std::unique_ptr<DataWorker>> make_worker(const WorkerContext& context) override {
    const TestSpec& spec = *context.spec;
    if (Status supported = check(spec); !supported) return supported.error();
    // Control path, once per process (later workers get the first outcome).
    if (Status eal = dpdk::Runtime::instance().init(spec.dpdk_args); !eal) return eal.error();
    const unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
    auto port = dpdk::Runtime::instance().port(
        spec.dpdk_port, static_cast<uint16_t>(std::min(cpus, 64u)));
    if (!port) return port.error();
    if (spec.role == Role::sender)
      return std::unique_ptr<DataWorker>(std::make_unique<dpdk::DpdkUdpSender>(context, **port));
    return std::unique_ptr<DataWorker>(std::make_unique<dpdk::DpdkUdpReceiver>(context, **port));
  }
};

}  // namespace

std::unique_ptr<Backend> make_dpdk_backend() { return std::make_unique<DpdkBackend>(); }

}  // namespace xttcp
