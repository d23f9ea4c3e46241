#include "io_backends/windows_option_check.hh"

#include <fmt/format.h>

#include "engine/plan.hh"

namespace xttcp {

Status check_windows_options(const TestSpec& spec, std::string_view backend,
                             const WindowsOptionSupport& does) {
  if (spec.dialect != Dialect::windows) return ok();
  const WindowsOptions& w = spec.windows;
  const bool sender = spec.role == Role::sender;
  auto refuse = [&](std::string_view option, std::string_view what) {
    return fail(fmt::format("{}: the {} backend {} ({})", option, backend, what, does.instead));
  };
  if (!does.socket_buffers && w.socket_recv_buffer >= 0)
    return refuse("-rb", "does not set SO_RCVBUF");
  if (!does.socket_buffers && w.socket_send_buffer >= 0 && !w.send_buffer_implied)
    return refuse("-sb", "does not set SO_SNDBUF");
  if (!does.verify_data && w.verify_data && !sender)
    return refuse("-d", "does not verify the received bytes");
  if (!does.wait_all && w.wait_all && !sender) return refuse("-wa", "has no MSG_WAITALL receives");
  if (!does.throttle && w.throttle_kBps > 0 && sender)
    return refuse("-thr", "does not throttle per thread");
  if (!does.udp_unconnected && w.udp_unconnected)
    return refuse("-uc", "has no unconnected UDP sockets");
  if (!does.buffer_count && w.buffer_count)
    return refuse("-n", "does not run count mode");
  if (!does.several_hosts && distinct_hosts(spec).size() > 1)
    return refuse("-m", "has one peer per run, not mappings towards different hosts");
  if (!does.latency && w.latency_measurement)
    return refuse("-lm", "does not time each send/recv call");
  return ok();
}

}  // namespace xttcp
