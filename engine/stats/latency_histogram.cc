#include "engine/stats/latency_histogram.hh"

#include <algorithm>
#include <bit>
#include <cmath>

namespace xttcp {

namespace histogram_layout {

namespace {
constexpr uint64_t sub_buckets = uint64_t{1} << sub_bucket_bits;
}

std::size_t index_of(uint64_t value) {
  if (value < linear_limit) return static_cast<std::size_t>(value);
  const unsigned msb = static_cast<unsigned>(std::bit_width(value)) - 1;  // >= sub_bucket_bits + 1
  if (msb >= top_bits) return bucket_count - 1;
  const unsigned shift = msb - sub_bucket_bits;
  const uint64_t sub = (value >> shift) - sub_buckets;  // 0 .. sub_buckets - 1
  return static_cast<std::size_t>(linear_limit + (msb - sub_bucket_bits - 1) * sub_buckets + sub);
}

uint64_t lower_bound(std::size_t index) {
  if (index < linear_limit) return index;
  const uint64_t above = index - linear_limit;
  const unsigned shift = static_cast<unsigned>(above / sub_buckets) + 1;
  return (sub_buckets + above % sub_buckets) << shift;
}

uint64_t width(std::size_t index) {
  if (index < linear_limit) return 1;
  return uint64_t{1} << (static_cast<unsigned>((index - linear_limit) / sub_buckets) + 1);
}

}  // namespace histogram_layout

void HistogramCounts::record(uint64_t value_ns) {
  ++buckets[histogram_layout::index_of(value_ns)];
  ++count;
  sum_ns += value_ns;
  max_ns = std::max(max_ns, value_ns);
}

HistogramCounts& HistogramCounts::merge(const HistogramCounts& other) {
  for (std::size_t i = 0; i < buckets.size(); ++i) buckets[i] += other.buckets[i];
  count += other.count;
  sum_ns += other.sum_ns;
  max_ns = std::max(max_ns, other.max_ns);
  return *this;
}

HistogramCounts HistogramCounts::minus(const HistogramCounts& earlier) const {
  HistogramCounts window;
  window.max_ns = 0;
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    // A reader may catch a bucket a moment before its count: never below zero.
    window.buckets[i] = buckets[i] >= earlier.buckets[i] ? buckets[i] - earlier.buckets[i] : 0;
    if (window.buckets[i] > 0) {
      const uint64_t mid = histogram_layout::lower_bound(i) + (histogram_layout::width(i) - 1) / 2;
      window.max_ns = std::min(mid, max_ns);
    }
  }
  window.count = count >= earlier.count ? count - earlier.count : 0;
  window.sum_ns = sum_ns >= earlier.sum_ns ? sum_ns - earlier.sum_ns : 0;
  return window;
}

uint64_t HistogramCounts::percentile(double q) const {
  if (count == 0) return 0;
  const double wanted = std::ceil(std::clamp(q, 0.0, 1.0) * static_cast<double>(count));
  const uint64_t rank = std::max<uint64_t>(1, static_cast<uint64_t>(wanted));
  uint64_t seen = 0;
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    seen += buckets[i];
    if (seen >= rank)
      return std::min(histogram_layout::lower_bound(i) + (histogram_layout::width(i) - 1) / 2,
                      max_ns);
  }
  return max_ns;  // the buckets were read a moment before the count
}

double HistogramCounts::mean_ns() const {
  return count == 0 ? 0.0 : static_cast<double>(sum_ns) / static_cast<double>(count);
}

HistogramCounts LatencyHistogram::read() const {
  HistogramCounts out;
  add_to(out);
  return out;
}

void LatencyHistogram::add_to(HistogramCounts& total) const {
  // The count is the buckets' own sum, so a copy taken while the writer runs (a polling DPDK
  // requester never pauses) has a histogram and a count that agree; sum and max may be one
  // sample apart from them.
  for (std::size_t i = 0; i < total.buckets.size(); ++i) {
    const uint64_t n = buckets_[i].load(std::memory_order_relaxed);
    total.buckets[i] += n;
    total.count += n;
  }
  total.sum_ns += sum_.load(std::memory_order_relaxed);
  total.max_ns = std::max(total.max_ns, max_.load(std::memory_order_relaxed));
}

}  // namespace xttcp
