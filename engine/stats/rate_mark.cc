#include "engine/stats/rate_mark.hh"

#include <algorithm>
#include <bit>

namespace xttcp {

uint32_t mark_for_rate(double bytes_per_s, uint64_t cap) {
  const double wanted = bytes_per_s * static_cast<double>(rate_mark::wake_window_ns) / 1e9;
  const uint64_t limit = std::min<uint64_t>(rate_mark::max_mark, cap);
  if (!(wanted >= rate_mark::min_mark) || limit < rate_mark::min_mark) return rate_mark::off;
  const uint64_t bounded = std::min(static_cast<uint64_t>(wanted), limit);
  return static_cast<uint32_t>(std::bit_floor(bounded));
}

uint32_t RateMark::update(uint64_t total_bytes, uint64_t now_ns, uint64_t cap) {
  if (!started_) {
    started_ = true;
    sample_start_ns_ = now_ns;
    sample_start_bytes_ = total_bytes;
    return 0;
  }
  const uint64_t elapsed_ns = now_ns - sample_start_ns_;
  if (elapsed_ns < rate_mark::sample_ns) return 0;
  const double rate = static_cast<double>(total_bytes - sample_start_bytes_) * 1e9 /
                      static_cast<double>(elapsed_ns);
  sample_start_ns_ = now_ns;
  sample_start_bytes_ = total_bytes;
  const double slower = std::min(rate, previous_rate_);
  previous_rate_ = rate;
  const uint32_t next = mark_for_rate(slower, cap);
  return next == mark_ ? 0 : next;
}

}  // namespace xttcp
