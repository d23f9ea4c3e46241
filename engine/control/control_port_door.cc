#include "engine/control/control_port_door.hh"

#include <fmt/format.h>

#include "engine/net/socket_io.hh"

namespace xttcp {

bool ControlPortDoor::listening(Clock::time_point now) {
  if (rest_.due(now)) rest_.resume();
  return !rest_.resting();
}

int ControlPortDoor::wait_ms(Clock::time_point now, int longest_ms) const {
  return static_cast<int>(rest_.wait_at_most(now, std::chrono::milliseconds(longest_ms)).count());
}

std::optional<UniqueSocket> ControlPortDoor::accept(NativeSocket listener, uint16_t port,
                                                    SocketAddress* peer_out) {
  SocketAddress peer;
  auto accepted = accept_connection(listener, &peer);
  const Clock::time_point now = Clock::now();
  if (!accepted) {
    // Out of descriptors (or memory): the connection stays queued, so retrying now would spin.
    std::string line;
    rest_.on_shortage(
        fmt::format("{}: accept on port {}: {}", name_, port, accepted.error().message), now, line);
    if (!line.empty()) log(line, true);
    return std::nullopt;
  }
  if (!*accepted) return std::nullopt;  // none pending
  if (const std::string back = rest_.on_success(port, now); !back.empty())
    log(name_ + ": " + back, false);
  if (hooks_.admit && !hooks_.admit(peer)) {
    log(fmt::format("{}: closed a connection from {} on port {}: not served here (--allow, "
                    "--max-clients)",
                    name_, peer.to_string(), port),
        true);
    return std::nullopt;  // closes it
  }
  if (peer_out != nullptr) *peer_out = peer;
  return std::move(**accepted);
}

void ControlPortDoor::log(std::string_view line, bool is_error) {
  if (!hooks_.log) return;
  const LineBudget::Verdict verdict = budget_.take(Clock::now());
  if (verdict.suppressed_before > 0)
    hooks_.log(fmt::format("{}: {} more line(s) about its connections were not logged", name_,
                           verdict.suppressed_before),
               true);
  if (verdict.print) hooks_.log(line, is_error);
}

}  // namespace xttcp
