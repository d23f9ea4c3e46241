// The live line printed at every interval (Log::realtime): NTTTCP-for-Linux's "Real-time
// throughput: 13.31Gbps", then where the test stands, "[3.0/10 s, ends in 8.0 s]"; --rr shows
// transactions per second and the interval's round trips instead of bits. Under the original's
// name (--defaults ntttcp) the throughput line is the original's, byte for byte.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace xttcp {

// Where the test stands as the line is printed.
struct LiveProgress {
  enum class Phase { warmup, measure, cooldown };
  Phase phase = Phase::measure;
  double elapsed_s = 0;  // since the phase began (warm-up, or the measured window)
  double length_s = 0;   // the phase's length (-W, -t); 0 = open-ended
  // Until the test's cycle ends; nullopt when nothing says (continuous mode, count mode).
  std::optional<double> left_s;
  // What ends an open-ended test ("until stopped").
  const char* until = nullptr;
};

// --rr: the interval's transactions and (requester) its round trips.
struct LiveTransactions {
  double per_second = 0;
  bool requester = false;
  uint64_t round_trips = 0;  // timed in the interval (0: none, or a responder)
  uint64_t p50_ns = 0, p99_ns = 0;
};

struct LiveFigures {
  double bits_per_second = 0;
  std::optional<LiveTransactions> rr;  // set: the line is about transactions
};

// The line without its end ('\n' or '\r', Log::realtime's). Without `progress`, no bracket.
std::string live_line(const LiveFigures& figures, const std::optional<LiveProgress>& progress);

}  // namespace xttcp
