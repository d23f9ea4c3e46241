// What receives each measured interval as it ends, on the control thread (engine/run/timeline.hh):
// --json-stream's NDJSON lines (interval_stream.hh) and the iperf2 dialect's live interval lines
// (iperf2_live.hh). Called once per interval, never from a data path.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/result.hh"

namespace xttcp {

// One stream's ends, "127.0.0.1:40000" / "[::1]:5001".
struct StreamEnds {
  std::string local, remote;
};

class IntervalSink {
 public:
  virtual ~IntervalSink() = default;
  // Whether the samples should carry each stream's share (IntervalSample::per_stream). Asked
  // once, when the sink is added.
  virtual bool wants_streams() const { return false; }
  // Whether the warm-up's intervals come too, marked IntervalSample::omitted and timed from
  // the test's start (iperf3's -O rows). Asked once, when the sink is added.
  virtual bool wants_omitted() const { return false; }
  // A sender's streams, once every one connected (before its window opens), in flow-slot order.
  virtual void connected(const std::vector<StreamEnds>& streams) { (void)streams; }
  // A receiver's stream seen for the first time (TCP: a watched connection; UDP: a flow its
  // worker named), before the interval that first carries it: `key` as StreamInterval::key
  // names it (with wants_streams()).
  virtual void stream_began(uint64_t key, const StreamEnds& ends) {
    (void)key;
    (void)ends;
  }
  // `sample` ended; `window_start` is the measured window's wall-clock start.
  virtual void interval(Role role, std::chrono::system_clock::time_point window_start,
                        const IntervalSample& sample, bool udp) = 0;
};

}  // namespace xttcp
