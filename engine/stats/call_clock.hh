// The clock that times each send/recv call under -lm (NTttcp for Windows' latency measurement):
// monotonic and cheap enough to read twice per call. Ticks are read on the hot path and turned
// into nanoseconds only when the counters are read.
//   Linux:   clock_gettime(CLOCK_MONOTONIC), served by the vDSO (no system call); 1 tick = 1 ns.
//   Windows: QueryPerformanceCounter, as NTttcp itself; 1 tick = 1 / QueryPerformanceFrequency s
//            (typically 100 ns: calls shorter than that read as 0 or 1 tick).
#pragma once

#include <cstdint>

#ifdef _WIN32
#include "engine/net/os_socket.hh"  // the Windows headers, in the one order that builds
#else
#include <time.h>
#endif

namespace xttcp {

inline uint64_t call_clock_ticks() {
#ifdef _WIN32
  LARGE_INTEGER count;
  QueryPerformanceCounter(&count);
  return static_cast<uint64_t>(count.QuadPart);
#else
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(now.tv_nsec);
#endif
}

// Nanoseconds per tick of call_clock_ticks().
inline double call_clock_ns_per_tick() {
#ifdef _WIN32
  static const double ns_per_tick = [] {
    LARGE_INTEGER frequency;
    QueryPerformanceFrequency(&frequency);
    return frequency.QuadPart > 0 ? 1e9 / static_cast<double>(frequency.QuadPart) : 0.0;
  }();
  return ns_per_tick;
#else
  return 1.0;
#endif
}

}  // namespace xttcp
