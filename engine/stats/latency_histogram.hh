// Round-trip times of request/response transactions (--rr, docs/rr.md): a log-linear histogram
// in the manner of HdrHistogram, written here. Values (nanoseconds) below 256 have a bucket each;
// above, every power of two is split into 128 equal buckets, so a bucket is at most 1/128 of its
// lower bound wide and the value reported for it (its midpoint) is within 1/256 (0.4 %) of every
// value it holds. Values from 2^40 ns (18 min) up share the last bucket. Fixed memory (35 KB).
//
// LatencyHistogram is written by exactly one worker (relaxed load + store, no lock, no locked
// add) and read by the engine at any time; HistogramCounts is a plain copy that windows
// subtract, flows and workers merge, and renderers read.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace xttcp {

namespace histogram_layout {
inline constexpr unsigned sub_bucket_bits = 7;                            // 128 buckets per octave
inline constexpr uint64_t linear_limit = uint64_t{2} << sub_bucket_bits;  // 256: exact below
inline constexpr unsigned top_bits = 40;  // 2^40 ns and up: last bucket
inline constexpr std::size_t bucket_count =
    linear_limit + (top_bits - (sub_bucket_bits + 1)) * (uint64_t{1} << sub_bucket_bits);

// The bucket holding `value`.
std::size_t index_of(uint64_t value);
// The smallest value of bucket `index` and how many values it holds.
uint64_t lower_bound(std::size_t index);
uint64_t width(std::size_t index);
}  // namespace histogram_layout

// A copy of a histogram: counts per bucket, the count, the sum and the largest value seen.
struct HistogramCounts {
  std::vector<uint64_t> buckets = std::vector<uint64_t>(histogram_layout::bucket_count, 0);
  uint64_t count = 0;
  uint64_t sum_ns = 0;
  uint64_t max_ns = 0;  // exact for a whole run; for a window, see minus()

  void record(uint64_t value_ns);  // for tests and for plain (single-threaded) use
  HistogramCounts& merge(const HistogramCounts& other);
  // What was recorded between `earlier` (a copy of the same histogram) and this copy. The
  // window's max is its highest bucket's midpoint, never above this copy's exact max.
  HistogramCounts minus(const HistogramCounts& earlier) const;

  // The value at quantile q in (0, 1]: the midpoint of the bucket holding the nearest-rank
  // sample (rank ceil(q * count)), never above max_ns. 0 when empty.
  uint64_t percentile(double q) const;
  double mean_ns() const;
};

class LatencyHistogram {
 public:
  LatencyHistogram() = default;
  LatencyHistogram(const LatencyHistogram&) = delete;
  LatencyHistogram& operator=(const LatencyHistogram&) = delete;

  // Hot path, single writer.
  void record(uint64_t value_ns) {
    constexpr auto relaxed = std::memory_order_relaxed;
    std::atomic<uint64_t>& bucket = buckets_[histogram_layout::index_of(value_ns)];
    bucket.store(bucket.load(relaxed) + 1, relaxed);
    sum_.store(sum_.load(relaxed) + value_ns, relaxed);
    if (value_ns > max_.load(relaxed)) max_.store(value_ns, relaxed);
    // Release: a reader that sees the new count sees the bucket that holds it.
    count_.store(count_.load(relaxed) + 1, std::memory_order_release);
  }

  // Any thread, at any time: the counts so far (a record() in progress may be half in).
  HistogramCounts read() const;
  // read(), merged into `total` (HistogramCounts::merge) without a copy of its own.
  void add_to(HistogramCounts& total) const;

 private:
  std::array<std::atomic<uint64_t>, histogram_layout::bucket_count> buckets_{};
  std::atomic<uint64_t> count_{0}, sum_{0}, max_{0};
};

}  // namespace xttcp
