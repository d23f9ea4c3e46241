// How many overlapped buffers each connection keeps in the kernel's hands (NTttcp's -a n).
#pragma once

#include <cstdint>
#include <string>

#include "engine/spec.hh"

namespace xttcp::iocp {

// -a n when given; else 2, NTttcp's own default for a bare -a: one buffer being filled (or
// drained) by the kernel while the other is handed back and reposted, so the connection never
// waits on the worker between two completions.
inline constexpr uint32_t default_outstanding = 2;

inline uint32_t outstanding_buffers(const TestSpec& spec) {
  return spec.io.outstanding > 0 ? spec.io.outstanding : default_outstanding;
}

// The WorkerReport note every iocp worker adds, e.g. "iocp: 2 overlapped receives outstanding per
// connection".
inline std::string outstanding_note(uint32_t buffers, const char* operations, const char* per) {
  return "iocp: " + std::to_string(buffers) + " overlapped " + operations + " outstanding per " +
         per;
}

}  // namespace xttcp::iocp
