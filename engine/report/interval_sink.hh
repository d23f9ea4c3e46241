// What receives each measured interval as it ends, on the control thread (engine/run/timeline.hh):
// --json-stream's NDJSON lines (interval_stream.hh) and the iperf2 dialect's live interval lines
// (iperf2_live.hh). Called once per interval, never from a data path.
#pragma once

#include <chrono>

#include "engine/result.hh"

namespace xttcp {

class IntervalSink {
 public:
  virtual ~IntervalSink() = default;
  // `sample` ended; `window_start` is the measured window's wall-clock start.
  virtual void interval(Role role, std::chrono::system_clock::time_point window_start,
                        const IntervalSample& sample, bool udp) = 0;
};

}  // namespace xttcp
