#include "engine/stats/rr_clock.hh"

#include <fmt/format.h>

#include <cmath>
#include <fstream>

namespace xttcp {
namespace {

std::string current_clocksource() {
  std::ifstream in("/sys/devices/system/clocksource/clocksource0/current_clocksource");
  std::string name;
  in >> name;
  return name;
}

}  // namespace

RrClock RrClock::choose(const std::string& clocksource, uint64_t calibration_ns) {
  RrClock clock;
#ifdef _WIN32
  (void)clocksource;
  (void)calibration_ns;
  const double ns_per_tick = call_clock_ns_per_tick();
  clock.ns_per_tick_q32_ = static_cast<uint64_t>(std::llround(ns_per_tick * 4294967296.0));
  // Its rate (10 MHz on Windows 10 and later, and under Wine) is the round trips' resolution.
  clock.description_ = ns_per_tick > 0
                           ? fmt::format("QueryPerformanceCounter, {:.1f} MHz", 1e3 / ns_per_tick)
                           : std::string("QueryPerformanceCounter");
#elif defined(__x86_64__)
  if (clocksource != "tsc") {
    clock.description_ = fmt::format("CLOCK_MONOTONIC (the kernel's clocksource is {}, not tsc)",
                                     clocksource.empty() ? "unknown" : clocksource);
    return clock;
  }
  // The TSC's rate against CLOCK_MONOTONIC, over a short busy wait: both read back to back at
  // each end, so the error is a few ns over calibration_ns.
  const uint64_t mono0 = call_clock_ticks();
  const uint64_t tsc0 = __rdtsc();
  uint64_t mono1 = mono0, tsc1 = tsc0;
  while (mono1 - mono0 < calibration_ns) {
    mono1 = call_clock_ticks();
    tsc1 = __rdtsc();
  }
  if (tsc1 <= tsc0) {
    clock.description_ = "CLOCK_MONOTONIC (the TSC did not advance while measured)";
    return clock;
  }
  const double ns_per_tick = static_cast<double>(mono1 - mono0) / static_cast<double>(tsc1 - tsc0);
  clock.tsc_ = true;
  clock.ns_per_tick_q32_ = static_cast<uint64_t>(std::llround(ns_per_tick * 4294967296.0));
  clock.description_ = fmt::format("TSC, {:.1f} MHz measured against CLOCK_MONOTONIC over {} ms",
                                   1e3 / ns_per_tick, calibration_ns / 1'000'000);
#else
  (void)clocksource;
  (void)calibration_ns;
  clock.description_ = "CLOCK_MONOTONIC";
#endif
  return clock;
}

const RrClock& RrClock::get() {
  static const RrClock clock = choose(current_clocksource(), 20'000'000);
  return clock;
}

}  // namespace xttcp
