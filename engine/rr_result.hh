// --rr results (docs/rr.md): transactions and their round-trip times over the measured window.
// Times are nanoseconds (of the TSC or CLOCK_MONOTONIC: engine/stats/rr_clock.hh); percentiles come
// from the log-linear histogram (engine/stats/latency_histogram.hh), within 1/256 of the true
// value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace xttcp {

// Round-trip times of a set of transactions; count == 0: none measured.
struct RrLatency {
  uint64_t count = 0;
  double mean_ns = 0;
  uint64_t p50_ns = 0, p90_ns = 0, p99_ns = 0, p999_ns = 0, p9999_ns = 0, max_ns = 0;
};

struct RrFlowResult {
  uint32_t flow = 0;  // the flow's slot
  uint64_t transactions = 0;
  double transactions_per_s = 0;
  RrLatency latency;  // requester only
};

struct RrResult {
  uint32_t depth = 1;
  uint32_t request_bytes = 0, response_bytes = 0;
  uint32_t delay_us = 0;      // --rr-delay-us of the responder
  std::string clock;          // requester: what timed the round trips (RrClock::description)
  uint64_t transactions = 0;  // requester: completed; responder: answered
  double transactions_per_s = 0;
  double cpu_us_per_transaction = 0;  // this process's CPU time (user + system) / transactions
  uint64_t lost = 0;                  // UDP requests that got no response (re-sent after a pause)
  RrLatency latency;                  // requester only
  // The window's histogram, non-empty buckets only: (lowest value in ns, count). The layout is
  // histogram_layout's (sub_bucket_bits), so a compare tool can merge runs or take percentiles.
  uint32_t sub_bucket_bits = 0;
  std::vector<std::pair<uint64_t, uint64_t>> histogram;
  std::vector<RrFlowResult> flows;
};

}  // namespace xttcp
