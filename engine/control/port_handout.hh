// NTttcp for Windows' -sp on the receiver, the rules (docs/hostile-peers.md), pure: which data
// port the next connection on the base port gets. First every port once, lowest first; then a
// port handed out at least handout_claim_wait ago and not claimed since (`claimed`: its data
// connection or its token came from a host it went to), oldest hand-out first. So a peer that
// takes a port and never uses it holds it for handout_claim_wait, not for good, and a port in
// use never goes to a second thread. The socket loop is port_assignment.cc.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace xttcp {

class PortHandout {
 public:
  using Clock = std::chrono::steady_clock;

  // Data ports first_port .. first_port + count - 1; `claimed(port)`: whether it is in use.
  PortHandout(uint16_t first_port, uint32_t count, std::function<bool(uint16_t)> claimed);

  struct Next {
    std::optional<uint16_t> port;            // hand this one out now
    std::optional<Clock::time_point> retry;  // else: when one may free; nullopt: none will
  };
  Next next(Clock::time_point now) const;
  // `port` went out (its 4 bytes were sent) at `now`.
  void handed_out(uint16_t port, Clock::time_point now);

 private:
  uint16_t first_port_;
  std::vector<std::optional<Clock::time_point>> handed_at_;  // per port: its latest hand-out
  std::function<bool(uint16_t)> claimed_;
};

}  // namespace xttcp
