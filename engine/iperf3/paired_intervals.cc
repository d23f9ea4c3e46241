#include "engine/iperf3/paired_intervals.hh"

#include <algorithm>

namespace xttcp::iperf3 {

void PairedIntervals::interval(Role role, std::chrono::system_clock::time_point,
                               const IntervalSample& sample, bool udp) {
  const std::lock_guard lock(mutex_);
  udp_ = udp;
  for (std::size_t g = 0; g < sending_.size(); ++g)
    if (sending_[g] == (role == Role::sender)) {
      pending_[g].push_back(sample);
      break;
    }
  deliver_ready(false);
}

void PairedIntervals::flush() {
  const std::lock_guard lock(mutex_);
  deliver_ready(true);
}

void PairedIntervals::deliver_ready(bool all) {
  auto waiting = [](const std::deque<IntervalSample>& q) { return !q.empty(); };
  while (all ? std::any_of(pending_.begin(), pending_.end(), waiting)
             : std::all_of(pending_.begin(), pending_.end(), waiting)) {
    const auto& first = *std::find_if(pending_.begin(), pending_.end(), waiting);
    IntervalSample empty;
    empty.start_s = first.front().start_s;
    empty.seconds = first.front().seconds;
    std::vector<IntervalSample> by_group;
    for (std::deque<IntervalSample>& q : pending_) {
      by_group.push_back(q.empty() ? empty : std::move(q.front()));
      if (!q.empty()) q.pop_front();
    }
    target_.intervals(by_group, udp_);
  }
}

}  // namespace xttcp::iperf3
