// Figures no run can produce: the one set of rules for every result that comes from outside this
// process (docs/hostile-peers.md, "Files handed to compare and report" and "A peer's result").
// The readers check a result's shape and types (native_json_read.cc); this checks what its
// numbers claim, so that nothing downstream prints "infGbps", divides by a window of 1e-300 s,
// or sums 1e308 into a mean. Used by result files (parse_native_runs: compare, report) and by a
// peer's result frame (the sender's run for its receiver's, the receiver's run for its senders').
#pragma once

#include <cstdint>

#include "base/status.hh"
#include "engine/result.hh"

namespace xttcp {

namespace plausible {
// Bits per second no network moves: the fastest NICs are 800 Gbit/s and a host has a few of
// them; memory-to-memory loopback on a large server reaches about 1 Tbit/s. Ten times the
// largest of those still leaves every real run far below, and no invented figure above.
inline constexpr double max_bits_per_s = 10e12;
// The null backend counts buffers it never moves (1.9 Pbit/s with 2 threads on a 2-core VM; a
// few hundred Pbit/s on hundreds of cores): a result file of it gets this ceiling instead. A
// peer's frame never does: what a peer claims to have sent us crossed a network.
inline constexpr double max_counted_bits_per_s = 1e18;
// Packets per second: the bit ceiling in minimum Ethernet frames (64 bytes).
inline constexpr double min_packet_bits = 64 * 8;
// Seconds: 0 (nothing measured), or at least the clock's nanosecond and at most ~31 years.
inline constexpr double min_seconds = 1e-9;
inline constexpr double max_seconds = 1e9;
// A count at or above 2^63 is a counter that wrapped, or -1 stored unsigned.
inline constexpr uint64_t count_limit = uint64_t{1} << 63;
// CPUs a result may describe (the queue window's bound): process busy % and CPU-seconds.
inline constexpr double max_cpus = 8192;
// Every other figure (cycles per byte, latencies in ns, jitter, rates of transactions): at
// most this, far past anything measured, so sums and squares over a file's runs stay finite.
inline constexpr double max_figure = 1e15;
}  // namespace plausible

// Which rules apply beyond those every result obeys.
struct PlausibilityRules {
  // A run read to be compared or drawn must have measured a window (duration_s > 0).
  bool window_required = false;
  // A null-backend result may count at max_counted_bits_per_s (its bytes never moved).
  bool counted_only_allowed = false;
};
// A run of a result file; the `peer` inside it is checked with window_required off.
inline constexpr PlausibilityRules result_file_rules{true, true};
// A peer's result frame over the sync connection.
inline constexpr PlausibilityRules peer_frame_rules{false, false};

// ok, or one line naming the first figure that breaks a rule by its JSON path:
// "summary.duration_s: 1e-300 s is not a measured time (0, or 1e-09 to 1e+09 s)".
Status check_plausible(const Result& result, PlausibilityRules rules);

}  // namespace xttcp
