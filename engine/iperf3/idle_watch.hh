// The end of an iperf3 test whose bytes stopped moving (server_run.cc, client_run.cc): a peer
// that went quiet, or stopped reading, holds this end no longer than idle_limit, whatever its
// -t (3.12: 120 s, and only while it receives).
#pragma once

#include <chrono>
#include <cstdint>
#include <fmt/format.h>
#include <optional>
#include <string>

#include "engine/run/worker_pool.hh"
#include "engine/stop_reason.hh"

namespace xttcp::iperf3 {

inline constexpr std::chrono::seconds idle_limit{60};

// For Timeline::set_watch: asked at every interval, a reason to end once the pool's bytes have
// not moved for idle_limit. `peer`: "the client" or "the server".
class IdleWatch {
 public:
  IdleWatch(const WorkerPool& pool, std::string peer) : pool_(pool), peer_(std::move(peer)) {}
  std::optional<StopReason> operator()() {
    const uint64_t bytes = pool_.total_bytes();
    const auto now = SteadyClock::now();
    if (bytes != last_bytes_) {
      last_bytes_ = bytes;
      last_progress_ = now;
      return std::nullopt;
    }
    if (now - last_progress_ < idle_limit) return std::nullopt;
    return StopReason{
        StopCause::sender_left,
        pool_.role() == Role::receiver
            ? fmt::format("idle timeout for receiving data ({} s)", idle_limit.count())
            : fmt::format("{} read nothing for {} s", peer_, idle_limit.count())};
  }

 private:
  const WorkerPool& pool_;
  std::string peer_;
  uint64_t last_bytes_ = 0;
  SteadyClock::time_point last_progress_ = SteadyClock::now();
};

}  // namespace xttcp::iperf3
