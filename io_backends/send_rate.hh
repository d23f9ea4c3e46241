// One sender worker's share of the run's send limits, shared by every backend's pacer.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "engine/spec.hh"

namespace xttcp {

// How far a paced TCP sender may run ahead of its schedule before it sleeps (Pacer): one
// wakeup per millisecond's worth of data, as iperf3's default --pacing-timer, rather than one
// per write.
inline constexpr int64_t tcp_pacing_burst_ns = 1'000'000;

// In bytes/s (0 = unpaced): -B (bits/s over all `spec.sender_connections()`) split by the
// worker's `connections`, and NTttcp for Windows' -thr (KB/s, 1 KB = 1024 B, per thread = per
// connection) times its connections; the lower when both are set.
inline double sender_worker_rate(const TestSpec& spec, std::size_t connections) {
  double rate = 0;
  if (spec.workload.rate_limit_bps > 0 && spec.sender_connections() > 0)
    rate = static_cast<double>(spec.workload.rate_limit_bps) / 8.0 *
           static_cast<double>(connections) / static_cast<double>(spec.sender_connections());
  if (spec.workload.thread_rate_kBps > 0) {
    const double throttle = static_cast<double>(spec.workload.thread_rate_kBps) * 1024.0 *
                            static_cast<double>(connections);
    rate = rate > 0 ? std::min(rate, throttle) : throttle;
  }
  return rate;
}

}  // namespace xttcp
