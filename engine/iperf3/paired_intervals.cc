#include "engine/iperf3/paired_intervals.hh"

#include <algorithm>
#include <cmath>

namespace xttcp::iperf3 {

namespace {
constexpr int64_t kOmittedKeys = int64_t{1} << 40;  // more intervals than any test has
}  // namespace

void PairedIntervals::interval(Role role, std::chrono::system_clock::time_point,
                               const IntervalSample& sample, bool udp) {
  const std::lock_guard lock(mutex_);
  udp_ = udp;
  for (std::size_t g = 0; g < sending_.size(); ++g) {
    if (sending_[g] != (role == Role::sender)) continue;
    // The omit period's intervals are timed from the test's start, the others from the
    // window's: the omitted ones come first, under keys of their own.
    const int64_t key =
        (interval_s_ > 0 ? std::llround(sample.start_s / interval_s_) : arrived_[g]) -
        (sample.omitted ? kOmittedKeys : 0);
    ++arrived_[g];
    auto& slots = pending_[key];
    slots.resize(sending_.size());
    slots[g] = sample;
    latest_[g] = std::max(latest_[g].value_or(key), key);
    break;
  }
  deliver_ready(false);
}

void PairedIntervals::flush() {
  const std::lock_guard lock(mutex_);
  deliver_ready(true);
}

void PairedIntervals::deliver_ready(bool all) {
  while (!pending_.empty()) {
    const auto first = pending_.begin();
    const int64_t key = first->first;
    std::vector<std::optional<IntervalSample>>& slots = first->second;
    // Out when every group measured it, or went past it (skipped it), or at the end.
    bool ready = true;
    for (std::size_t g = 0; g < slots.size(); ++g)
      ready = ready && (slots[g] || (latest_[g] && *latest_[g] > key));
    if (!ready && !all) return;
    const auto present = std::find_if(slots.begin(), slots.end(), [](const auto& s) { return s; });
    IntervalSample empty;
    empty.start_s = (*present)->start_s;
    empty.seconds = (*present)->seconds;
    empty.omitted = (*present)->omitted;
    std::vector<IntervalSample> by_group;
    for (std::optional<IntervalSample>& slot : slots)
      by_group.push_back(slot ? std::move(*slot) : empty);
    pending_.erase(first);
    target_.intervals(by_group, udp_);
  }
}

}  // namespace xttcp::iperf3
