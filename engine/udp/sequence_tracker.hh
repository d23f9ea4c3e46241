// Receive-side accounting of native xttcp UDP flows: loss, reordering, duplicates and RFC 3550
// jitter from the sequence and send time of each datagram (engine/udp/datagram_header.hh).
//
// Definitions, per flow, over extended (64-bit) sequences:
// - sequence extension: the 32-bit wire sequence becomes the 64-bit value closest to the highest
//   extended sequence seen so far (RFC 3550 A.1 style), so a flow may run past 2^32 and a late
//   datagram from before a wrap still lands in the previous cycle. The first datagram is taken
//   in cycle 0. A value that would be negative (a wire sequence just "below" 0 while the highest
//   is still small) is taken one cycle up instead. Consequence: a datagram more than 2^31
//   sequences behind the highest is read as a jump ahead.
// - duplicate: a sequence already received, detected when it lies within the last
//   `duplicate_window` sequences up to the highest (highest - sequence < window; a bitmap).
//   Older than the window it cannot be checked and counts as reordered + unique, so duplicates
//   can only be under-counted (and unique over-counted), never the other way round.
// - reordered: a non-duplicate datagram whose extended sequence is lower than the highest seen
//   so far (RFC 4737 "reordered" singleton definition). A late datagram that fills a gap is
//   reordered, and the gap it fills is no longer lost.
// - expected: highest extended sequence + 1. Senders number each flow from 0, so datagrams lost
//   before the first arrival count as lost, when that first arrival lies within the first
//   `duplicate_window` sequences; a first arrival further on (a flow met late, or a peer's
//   invented one, whose random sequence would otherwise claim up to 2^32 lost) starts the count
//   at itself: expected is then highest - first + 1. In count mode the flow's end marker raises
//   it to the flow's sent count (on_end), so datagrams lost after the last arrival count as lost
//   too.
// - lost: expected - unique, clamped at 0.
// - jitter: RFC 3550 §6.4.1 interarrival jitter over consecutive arrivals (arrival order, not
//   sequence order), in ns: D = (R_j - R_i) - (S_j - S_i), J += (|D| - J) / 16. Kept as a double,
//   published rounded to the nearest ns. Sender and receiver clocks need not agree: only the
//   differences matter. A datagram with the same send time as the previous sample (one sender
//   batch, stamped once) is skipped: only batch boundaries are samples. Duplicates are ignored by
//   jitter (they neither update J nor become the previous arrival). The first arrival only sets the
//   reference, J stays 0.
// - datagrams and bytes count every datagram received, duplicates and compat datagrams included.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "engine/stats/counters.hh"

namespace xttcp::udp {

// Written by one receiving worker, read by the engine at interval edges from another thread:
// relaxed atomics, single writer (load + store, as FlowCounter::add), one cache line per flow.
// Fields are read one at a time, so a snapshot taken while datagrams arrive may pair a new
// `expected` with an older `unique`; lost() clamps and the next snapshot is exact.
struct alignas(cache_line) UdpFlowCounters {
  std::atomic<uint64_t> datagrams{0};  // every datagram, native or not, duplicates included
  std::atomic<uint64_t> bytes{0};      // UDP payload bytes of those datagrams, header included
  std::atomic<uint64_t> unique{0};     // native datagrams that were not duplicates
  std::atomic<uint64_t> duplicates{0};
  std::atomic<uint64_t> reordered{0};
  std::atomic<uint64_t> expected{0};   // highest extended sequence + 1 (flows start at 0)
  std::atomic<uint64_t> jitter_ns{0};  // RFC 3550 estimate, rounded (a level, not a count)
  // Datagrams without a native header (NTttcp payload): counted, not sequenced.
  std::atomic<uint64_t> compat_datagrams{0};
};
static_assert(sizeof(UdpFlowCounters) == cache_line);

struct UdpFlowSnapshot {
  uint64_t datagrams = 0;
  uint64_t bytes = 0;
  uint64_t unique = 0;
  uint64_t duplicates = 0;
  uint64_t reordered = 0;
  uint64_t expected = 0;
  uint64_t jitter_ns = 0;
  uint64_t compat_datagrams = 0;

  // expected - unique, never negative. On a delta it is the interval's newly expected minus its
  // newly received: a late datagram filling an earlier interval's gap can make that 0.
  uint64_t lost() const { return expected > unique ? expected - unique : 0; }

  bool operator==(const UdpFlowSnapshot&) const = default;
};

UdpFlowSnapshot read(const UdpFlowCounters& counters);

// Deltas for intervals and windows: every count is later - earlier (clamped at 0, should the
// arguments be swapped); jitter_ns is later's value, since it is a level, not a count.
UdpFlowSnapshot operator-(const UdpFlowSnapshot& later, const UdpFlowSnapshot& earlier);
// Adds `counts` to `total` (jitter untouched: a level, not a count). The counters' version is
// for their single writer.
void add_counts(UdpFlowSnapshot& total, const UdpFlowSnapshot& counts);
void add_counts(UdpFlowCounters& total, const UdpFlowSnapshot& counts);
// One datagram of `bytes` counted and not sequenced (as compat payload is): a flow id no sender
// uses.
void count_datagram(UdpFlowCounters& counters, uint32_t bytes);

// Lives in the receiving worker, one per flow (or per (socket, flow id)); not thread-safe, it is
// the single writer of its counters. No allocation after construction.
class SequenceTracker {
 public:
  // `counters` must outlive the tracker. `duplicate_window` is rounded up to a power of two of at
  // least 64 (the bitmap costs window / 8 bytes, allocated here).
  explicit SequenceTracker(UdpFlowCounters& counters, uint32_t duplicate_window = 65536);

  // A native datagram. `sequence` is the 32-bit wire value (extended as described above);
  // `send_time_ns` from its header, `receive_time_ns` from the receiver's clock; `bytes` is the
  // datagram's payload size.
  void on_datagram(uint32_t sequence, uint64_t send_time_ns, uint64_t receive_time_ns,
                   uint32_t bytes);

  // A datagram without the native header: counts datagrams, bytes and compat_datagrams only.
  void on_compat_datagram(uint32_t bytes);

  // Count mode's end marker (end_marker.hh): the flow sent `sent` datagrams, so expected is at
  // least that and datagrams lost after the last one received count as lost too, and so do
  // those before a first arrival past the first window (unless expect_from_first()). Counts
  // nothing.
  void on_end(uint64_t sent);

  uint64_t duplicate_window() const { return window_; }

  // A flow tracked afresh after it was retired (flow_registry.hh) cannot know what came before:
  // it expects datagrams from the first sequence it sees, not from 0, wherever that lies. Call
  // before any datagram.
  void expect_from_first() { from_first_ = true; }

 private:
  uint64_t extend(uint32_t sequence) const;
  bool test_and_set(uint64_t sequence);
  void clear_slots(uint64_t first_sequence, uint64_t count);
  void update_jitter(uint64_t send_time_ns, uint64_t receive_time_ns);

  UdpFlowCounters* counters_;
  uint64_t window_;                 // power of two, >= 64
  std::vector<uint64_t> received_;  // bit (sequence & (window_ - 1)): received
  bool started_ = false;
  uint64_t highest_ = 0;   // highest extended sequence, valid once started_
  uint64_t end_sent_ = 0;  // the end marker's sent count (count mode), 0 before it
  bool from_first_ = false;
  uint64_t origin_ = 0;  // the first sequence seen when counting starts there, else 0
  bool have_transit_ = false;
  uint64_t previous_send_ = 0;     // send time of the previous jitter sample (batch boundary)
  uint64_t previous_transit_ = 0;  // R - S of the previous non-duplicate arrival, modulo 2^64
  double jitter_ = 0.0;
};

}  // namespace xttcp::udp
