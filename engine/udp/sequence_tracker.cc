#include "engine/udp/sequence_tracker.hh"

#include <algorithm>
#include <bit>
#include <cmath>

namespace xttcp::udp {
namespace {

constexpr uint64_t cycle = uint64_t{1} << 32;
constexpr uint64_t minimum_window = 64;  // one bitmap word

// Single writer: relaxed load + store, no locked add on the hot path (as FlowCounter::add).
void bump(std::atomic<uint64_t>& counter, uint64_t n = 1) {
  counter.store(counter.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
}

void set(std::atomic<uint64_t>& counter, uint64_t value) {
  counter.store(value, std::memory_order_relaxed);
}

uint64_t minus(uint64_t later, uint64_t earlier) { return later > earlier ? later - earlier : 0; }

}  // namespace

UdpFlowSnapshot read(const UdpFlowCounters& c) {
  UdpFlowSnapshot s;
  s.datagrams = c.datagrams.load(std::memory_order_relaxed);
  s.bytes = c.bytes.load(std::memory_order_relaxed);
  s.unique = c.unique.load(std::memory_order_relaxed);
  s.duplicates = c.duplicates.load(std::memory_order_relaxed);
  s.reordered = c.reordered.load(std::memory_order_relaxed);
  s.expected = c.expected.load(std::memory_order_relaxed);
  s.jitter_ns = c.jitter_ns.load(std::memory_order_relaxed);
  s.compat_datagrams = c.compat_datagrams.load(std::memory_order_relaxed);
  return s;
}

UdpFlowSnapshot operator-(const UdpFlowSnapshot& later, const UdpFlowSnapshot& earlier) {
  UdpFlowSnapshot d;
  d.datagrams = minus(later.datagrams, earlier.datagrams);
  d.bytes = minus(later.bytes, earlier.bytes);
  d.unique = minus(later.unique, earlier.unique);
  d.duplicates = minus(later.duplicates, earlier.duplicates);
  d.reordered = minus(later.reordered, earlier.reordered);
  d.expected = minus(later.expected, earlier.expected);
  d.jitter_ns = later.jitter_ns;
  d.compat_datagrams = minus(later.compat_datagrams, earlier.compat_datagrams);
  return d;
}

void add_counts(UdpFlowSnapshot& total, const UdpFlowSnapshot& c) {
  total.datagrams += c.datagrams;
  total.bytes += c.bytes;
  total.unique += c.unique;
  total.duplicates += c.duplicates;
  total.reordered += c.reordered;
  total.expected += c.expected;
  total.compat_datagrams += c.compat_datagrams;
}

void add_counts(UdpFlowCounters& total, const UdpFlowSnapshot& c) {
  bump(total.datagrams, c.datagrams);
  bump(total.bytes, c.bytes);
  bump(total.unique, c.unique);
  bump(total.duplicates, c.duplicates);
  bump(total.reordered, c.reordered);
  bump(total.expected, c.expected);
  bump(total.compat_datagrams, c.compat_datagrams);
}

void count_datagram(UdpFlowCounters& counters, uint32_t bytes) {
  bump(counters.datagrams);
  bump(counters.bytes, bytes);
  bump(counters.compat_datagrams);  // counted, not sequenced: as NTttcp's payload is
}

SequenceTracker::SequenceTracker(UdpFlowCounters& counters, uint32_t duplicate_window)
    : counters_(&counters),
      window_(std::bit_ceil(std::max<uint64_t>(duplicate_window, minimum_window))),
      received_(window_ / 64, 0) {}

uint64_t SequenceTracker::extend(uint32_t sequence) const {
  if (!started_) return sequence;
  // Signed distance from the highest on the 32-bit circle, in [-2^31, 2^31).
  const auto distance =
      static_cast<int64_t>(static_cast<int32_t>(sequence - static_cast<uint32_t>(highest_)));
  if (distance < 0 && static_cast<uint64_t>(-distance) > highest_) {
    return highest_ + static_cast<uint64_t>(distance) + cycle;  // would be negative: next cycle
  }
  return highest_ + static_cast<uint64_t>(distance);  // modular add of a signed distance
}

bool SequenceTracker::test_and_set(uint64_t sequence) {
  const uint64_t slot = sequence & (window_ - 1);
  uint64_t& word = received_[slot / 64];
  const uint64_t bit = uint64_t{1} << (slot % 64);
  const bool was_set = (word & bit) != 0;
  word |= bit;
  return was_set;
}

// Forgets the slots of `count` sequences from `first_sequence` on: the highest is about to move
// over them, and their slots still hold sequences one window older.
void SequenceTracker::clear_slots(uint64_t first_sequence, uint64_t count) {
  if (count >= window_) {
    std::fill(received_.begin(), received_.end(), 0);
    return;
  }
  uint64_t slot = first_sequence & (window_ - 1);
  while (count > 0) {
    const uint64_t bit = slot % 64;
    const uint64_t n = std::min(count, 64 - bit);
    const uint64_t mask = n == 64 ? ~uint64_t{0} : ((uint64_t{1} << n) - 1) << bit;
    received_[slot / 64] &= ~mask;
    count -= n;
    slot = (slot + n) & (window_ - 1);
  }
}

void SequenceTracker::update_jitter(uint64_t send_time_ns, uint64_t receive_time_ns) {
  // Datagrams of one send batch carry one send time (the sender stamps a batch once), so after
  // the first of them they say nothing about timing: only batch boundaries update the estimate.
  if (have_transit_ && send_time_ns == previous_send_) return;
  previous_send_ = send_time_ns;
  // Transit times modulo 2^64: the two clocks need not agree, only differences are used.
  const uint64_t transit = receive_time_ns - send_time_ns;
  if (have_transit_) {
    const auto d = static_cast<int64_t>(transit - previous_transit_);
    jitter_ += (std::fabs(static_cast<double>(d)) - jitter_) / 16.0;
    set(counters_->jitter_ns, static_cast<uint64_t>(std::llround(jitter_)));
  }
  previous_transit_ = transit;
  have_transit_ = true;
}

void SequenceTracker::on_datagram(uint32_t sequence, uint64_t send_time_ns,
                                  uint64_t receive_time_ns, uint32_t bytes) {
  UdpFlowCounters& c = *counters_;
  bump(c.datagrams);
  bump(c.bytes, bytes);

  const uint64_t extended = extend(sequence);
  if (!started_ || extended > highest_) {
    if (started_) clear_slots(highest_ + 1, extended - highest_);
    if (!started_ && (from_first_ || extended >= window_)) origin_ = extended;
    started_ = true;
    highest_ = extended;
    test_and_set(extended);
    bump(c.unique);
    // max: a late arrival after the end marker
    set(c.expected, std::max(extended + 1, end_sent_) - origin_);  // origin_ <= extended
  } else if (highest_ - extended < window_) {
    if (test_and_set(extended)) {
      bump(c.duplicates);
      return;  // duplicates do not touch jitter
    }
    bump(c.unique);
    bump(c.reordered);
  } else {
    // Older than the window: cannot tell a duplicate, counted as a reordered first arrival.
    bump(c.unique);
    bump(c.reordered);
  }
  update_jitter(send_time_ns, receive_time_ns);
}

void SequenceTracker::on_end(uint64_t sent) {
  // The marker names the flow's whole count from 0: what its first arrival started past is lost
  // too (a flow tracked afresh still cannot know what its earlier place counted).
  if (!from_first_) origin_ = 0;
  end_sent_ = std::max(end_sent_, sent);
  const uint64_t expected = end_sent_ > origin_ ? end_sent_ - origin_ : 0;
  if (expected > counters_->expected.load(std::memory_order_relaxed))
    set(counters_->expected, expected);
}

void SequenceTracker::on_compat_datagram(uint32_t bytes) {
  UdpFlowCounters& c = *counters_;
  bump(c.datagrams);
  bump(c.bytes, bytes);
  bump(c.compat_datagrams);
}

}  // namespace xttcp::udp
