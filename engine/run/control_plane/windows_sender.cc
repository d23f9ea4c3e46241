// NTttcp for Windows on the sender. Each thread talks to its own mapping's host: with -sp it
// asks that host's base port for its data port before connecting; once every connection is up
// its token goes to that host on its data port + 1000 (none with -ns).
#include <fmt/format.h>

#include <algorithm>

#include "engine/control/port_assignment.hh"
#include "engine/control/token_exchange.hh"
#include "engine/control/windows_token.hh"
#include "engine/report/log.hh"
#include "engine/run/control_plane/sender_control.hh"
#include "engine/run/control_plane/senders.hh"

namespace xttcp {

namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

class WindowsSender final : public SenderControl {
 public:
  explicit WindowsSender(const SenderControlContext& context)
      : context_(context),
        // The original retries its connects 100 times 100 ms apart: at least 10 s.
        timeout_(seconds(std::max<uint32_t>(context.spec.control.connect_timeout_s, 10))) {}

  Expected<Agreement> agree() override {
    if (context_.spec.control.no_sync) context_.log.info("Starting sender activity (no sync) ...");
    if (Status ports = fetch_data_ports(); !ports) return ports.error();
    return Agreement{context_.spec.cycle_s(), false};
  }

  Status start() override {
    const TestSpec& spec = context_.spec;
    if (!windows_token::uses_tokens(spec)) return ok();
    std::vector<SocketAddress> endpoints;
    for (const windows_token::TokenTarget& target : windows_token::token_targets(context_.plan)) {
      endpoints.push_back(context_.receivers[target.host]);
      endpoints.back().set_port(target.port);
    }
    context_.log.debug(fmt::format("token sync on ports {}..{} ({} host(s))",
                                   endpoints.front().port(), endpoints.back().port(),
                                   context_.receivers.size()));
    // UDP: each thread declares its flow after its token, so the receiver counts only those;
    // only when its datagrams carry the token (xttcp's header): this plane never learns that its
    // receiver is xttcp, so --udp-payload auto sends NTttcp's payload (settle_udp_payload).
    std::vector<windows_token::FlowDeclaration> flows;
    if (const auto& udp = context_.udp_flows;
        udp && spec.workload.udp_payload == UdpPayload::native)
      for (const uint32_t slot : windows_token::token_slots(context_.plan))
        flows.push_back({udp->base | slot, udp->token});
    return exchange_tokens_as_sender(endpoints, context_.source, timeout_, context_.interrupted,
                                     flows);
  }

  Status stopped(double, bool) override { return ok(); }

 private:
  // -sp: each host hands out its own data ports, base + 1 upwards, as the original's receivers
  // do (the plan numbers the data ports per host to match).
  Status fetch_data_ports() const {
    const TestSpec& spec = context_.spec;
    if (!spec.control.port_assignment) return ok();
    const std::vector<uint32_t> threads = windows_token::threads_per_host(context_.plan);
    for (size_t h = 0; h < context_.receivers.size(); ++h) {
      SocketAddress base = context_.receivers[h];
      base.set_port(spec.layout.base_port);
      // A receiver holds a connection while a port handed to a peer that never used it
      // frees (handout_claim_wait): that is on top of the connect time.
      auto ports =
          fetch_assigned_ports(base, threads[h], context_.source,
                               timeout_ + windows_token::handout_claim_wait, context_.interrupted);
      if (!ports) return ports.error();
      if (Status expected =
              windows_token::check_assigned_ports(*ports, spec.layout.base_port, threads[h]);
          !expected)
        return fail(fmt::format("{} (from {})", expected.error().message, base.host()));
      context_.log.debug(fmt::format("-sp: {} handed out data ports {}..{}", base.host(),
                                     spec.layout.base_port + 1,
                                     spec.layout.base_port + threads[h]));
    }
    return ok();
  }

  SenderControlContext context_;
  milliseconds timeout_;
};

}  // namespace

std::unique_ptr<SenderControl> make_windows_sender(const SenderControlContext& context) {
  return std::make_unique<WindowsSender>(context);
}

}  // namespace xttcp
