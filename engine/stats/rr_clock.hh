// The clock of --rr round trips, the same on every data path (docs/rr.md, "Clock and
// histogram"). Linux x86-64: the CPU's time-stamp counter when the kernel itself keeps time with
// it (its clocksource is "tsc": invariant, and in step on every CPU), its rate measured against
// CLOCK_MONOTONIC when the clock is first used; otherwise CLOCK_MONOTONIC through the vDSO.
// Windows: QueryPerformanceCounter (which Windows bases on the invariant TSC where it can).
// Workers stamp in ticks on the hot path and turn a round trip into ns once, by a multiply.
#pragma once

#include <cstdint>
#include <string>

#include "engine/stats/call_clock.hh"

#if defined(__x86_64__) && !defined(_WIN32)
#include <x86intrin.h>
#endif

namespace xttcp {

__extension__ typedef unsigned __int128 RrClockWide;  // GCC and Clang (MinGW too): no pedantic note

class RrClock {
 public:
  // The process's clock, chosen and calibrated on its first use (the engine makes that use
  // before any worker starts, so no worker pays for it).
  static const RrClock& get();

  uint64_t now() const {
#if defined(__x86_64__) && !defined(_WIN32)
    if (tsc_) return __rdtsc();
#endif
    return call_clock_ticks();
  }
  uint64_t to_ns(uint64_t ticks) const {
    return static_cast<uint64_t>((static_cast<RrClockWide>(ticks) * ns_per_tick_q32_) >> 32);
  }
  uint64_t from_ns(uint64_t ns) const {
    return ns_per_tick_q32_ == 0
               ? ns
               : static_cast<uint64_t>((static_cast<RrClockWide>(ns) << 32) / ns_per_tick_q32_);
  }
  bool tsc() const { return tsc_; }
  // What the clock is, for the result: "TSC, 2596.1 MHz measured against CLOCK_MONOTONIC" or
  // "CLOCK_MONOTONIC (the kernel's clocksource is kvm-clock, not tsc)".
  const std::string& description() const { return description_; }

  // The choice, given what the kernel keeps time with ("" when unknown); for tests. The TSC's
  // rate is measured here, over `calibration_ns` of CLOCK_MONOTONIC.
  static RrClock choose(const std::string& clocksource, uint64_t calibration_ns);

 private:
  bool tsc_ = false;
  uint64_t ns_per_tick_q32_ = uint64_t{1} << 32;  // ns per tick, 32.32 fixed point
  std::string description_;
};

}  // namespace xttcp
