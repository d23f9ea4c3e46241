// What a TCP receiver counts of each connection's receives when the run asks (io.count_reads):
// their bytes, how many, and how many of each size, in iperf 2's 8 bins (the iperf2 dialect's
// per-stream server lines and -e's Reads=Dist, docs/iperf2.md). One tally per watched
// connection, written by its worker alone and read by the control thread at interval edges
// (ConnectionWatch): no lock, relaxed stores, one per buffer only where the run asked for it.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "engine/result.hh"
#include "engine/stats/counters.hh"

namespace xttcp {

struct alignas(cache_line) StreamTally {
  std::atomic<uint64_t> bytes{0};
  std::atomic<uint64_t> reads{0};
  std::atomic<uint64_t> bins[read_size_bins] = {};

  struct Counts {
    uint64_t bytes = 0;
    ReadSizes sizes;
  };
  Counts read() const {
    constexpr auto relaxed = std::memory_order_relaxed;
    Counts c;
    c.bytes = bytes.load(relaxed);
    c.sizes.reads = reads.load(relaxed);
    for (std::size_t k = 0; k < read_size_bins; ++k) c.sizes.bins[k] = bins[k].load(relaxed);
    return c;
  }
  // Back to zero for its next connection (by the watch, before any worker writes it again).
  void reset() {
    bytes.store(0, std::memory_order_relaxed);
    reads.store(0, std::memory_order_relaxed);
    for (std::atomic<uint64_t>& bin : bins) bin.store(0, std::memory_order_relaxed);
  }
};

// How one receive is counted. iperf 2's bins are -l/8 bytes wide (its server reads at most -l
// bytes a call) and a read of n bytes falls in bin (n - 1) / width; xttcp's receives may take
// more than -l at once (MSG_TRUNC's longer receives, io_uring bundles), so a receive of more than
// -l bytes counts as that many reads of -l bytes and one of the rest.
class ReadSizeBinning {
 public:
  explicit ReadSizeBinning(uint64_t read_length)
      : length_(std::max<uint64_t>(read_length, 1)), width_(std::max<uint64_t>(length_ / 8, 1)) {}

  uint64_t width() const { return width_; }

  // A receive of `n` > 0 bytes into `tally`. Its single writer: plain loads and stores.
  void count(StreamTally& tally, uint64_t n) const {
    constexpr auto relaxed = std::memory_order_relaxed;
    tally.bytes.store(tally.bytes.load(relaxed) + n, relaxed);
    if (n <= length_) {
      add(tally, 1, n);
      return;
    }
    const uint64_t whole = n / length_, rest = n % length_;
    add(tally, whole, length_);
    if (rest > 0) add(tally, 1, rest);
  }

 private:
  void add(StreamTally& tally, uint64_t reads, uint64_t size) const {
    constexpr auto relaxed = std::memory_order_relaxed;
    tally.reads.store(tally.reads.load(relaxed) + reads, relaxed);
    if (const uint64_t k = (size - 1) / width_; k < read_size_bins)
      tally.bins[k].store(tally.bins[k].load(relaxed) + reads, relaxed);
  }

  uint64_t length_;
  uint64_t width_;
};

}  // namespace xttcp
