// The contract's code: capability flags in words, and the checks made from them.
#include "engine/backend/backend.hh"

#include <utility>

namespace xttcp {

std::string describe_capabilities(uint32_t caps) {
  static constexpr std::pair<Capability, const char*> names[] = {
      {cap_tcp, "tcp"},           {cap_udp, "udp"},
      {cap_zerocopy_tx, "zerocopy-tx"}, {cap_multishot_rx, "multishot-rx"},
      {cap_queue_binding, "queue-binding"}, {cap_busy_poll, "busy-poll"},
      {cap_raw_frames, "raw-frames"}, {cap_peer_filter, "peer-filter"},
  };
  std::string out;
  for (auto [bit, name] : names) {
    if ((caps & bit) == 0) continue;
    if (!out.empty()) out += ",";
    out += name;
  }
  return out.empty() ? "-" : out;
}

Status check_capabilities(const Backend& backend, const TestSpec& spec) {
  const uint32_t caps = backend.capabilities();
  if (spec.role != Role::sender && spec.access.restricted() && (caps & cap_peer_filter) == 0)
    return fail(std::string(spec.access.allow.empty() ? "--max-clients" : "--allow") + ": the " +
                std::string(backend.name()) + " backend cannot turn peers away (epoll and io_uring can)");
  return ok();
}

}  // namespace xttcp
