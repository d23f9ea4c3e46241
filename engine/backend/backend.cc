// The contract's one piece of code: capability flags in words.
#include "engine/backend/backend.hh"

#include <utility>

namespace xttcp {

std::string describe_capabilities(uint32_t caps) {
  static constexpr std::pair<Capability, const char*> names[] = {
      {cap_tcp, "tcp"},           {cap_udp, "udp"},
      {cap_zerocopy_tx, "zerocopy-tx"}, {cap_multishot_rx, "multishot-rx"},
      {cap_queue_binding, "queue-binding"}, {cap_busy_poll, "busy-poll"},
      {cap_raw_frames, "raw-frames"},
  };
  std::string out;
  for (auto [bit, name] : names) {
    if ((caps & bit) == 0) continue;
    if (!out.empty()) out += ",";
    out += name;
  }
  return out.empty() ? "-" : out;
}

}  // namespace xttcp
