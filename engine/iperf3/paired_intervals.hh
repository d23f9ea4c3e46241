// The intervals of an iperf3 test's directions (directions.hh), each group measured by its own
// timeline on the test's one clock, paired up: 3.12 prints (and -J lists) an interval once,
// every direction's rows in it. The timelines run on their own threads; the renderers see one
// interval at a time, every group's share in group order.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include "engine/report/interval_sink.hh"

namespace xttcp::iperf3 {

// A renderer of intervals (the console's rows, -J's `intervals`).
class GroupIntervals {
 public:
  virtual ~GroupIntervals() = default;
  // One interval: each group's sample, in group order (a group that measured none: an empty
  // sample with the others' times).
  virtual void intervals(const std::vector<IntervalSample>& by_group, bool udp) = 0;
};

class PairedIntervals final : public IntervalSink {
 public:
  // `sending`: each group's direction, in group order (no two alike: a group's timeline is
  // told apart by its role); `interval_s`: the timelines' interval, by which their samples are
  // paired (a timeline that fell behind skips one, and the others' go on alone); `target`
  // outlives this.
  PairedIntervals(std::vector<bool> sending, double interval_s, GroupIntervals& target)
      : sending_(std::move(sending)),
        interval_s_(interval_s),
        latest_(sending_.size()),
        arrived_(sending_.size(), 0),
        target_(target) {}
  bool wants_streams() const override { return true; }
  bool wants_omitted() const override { return true; }  // 3.12 prints (and lists) -O's too
  void interval(Role role, std::chrono::system_clock::time_point window_start,
                const IntervalSample& sample, bool udp) override;
  // The timelines ended: an interval only some groups measured (the last, each timeline seeing
  // the clock's end a moment apart) goes out, the others' shares empty.
  void flush();

 private:
  void deliver_ready(bool all);

  std::vector<bool> sending_;
  double interval_s_;
  // By interval (its start over the interval), each group's sample once it came.
  std::map<int64_t, std::vector<std::optional<IntervalSample>>> pending_;
  std::vector<std::optional<int64_t>> latest_;  // each group's latest interval
  std::vector<int64_t> arrived_;                // each group's samples (no interval: the key)
  GroupIntervals& target_;
  bool udp_ = false;
  std::mutex mutex_;
};

}  // namespace xttcp::iperf3
