// NTttcp for Windows' count mode (-n N, or no -t): each sender thread (one flow, one connection)
// sends exactly N buffers of -l bytes, shuts its sending side down, and the run ends when every
// flow has; the receiver ends when every connection has been closed by its sender. UDP: N
// datagrams of -l bytes, then a few end markers (engine/udp/end_marker.hh); the receiver ends
// when every flow's marker arrived. -t, or 3 hours, bounds the run
// (Workload::count_timeout_s, the spec's duration).
#pragma once

#include <cstdint>

#include "engine/spec.hh"

namespace xttcp {

inline bool count_mode(const TestSpec& spec) {
  return spec.dialect == Dialect::windows && spec.workload.buffer_count.has_value();
}

// The bytes each sender flow sends before it stops: N x -l; 0 = no budget (a timed run, or not
// a sender). A backend's loop counts down from it per connection (no per-buffer virtual call).
inline uint64_t flow_send_budget(const TestSpec& spec) {
  if (!count_mode(spec) || spec.role != Role::sender) return 0;
  return *spec.workload.buffer_count * uint64_t{spec.workload.send_buffer};
}

// UDP: the datagrams each sender flow sends before its end markers: N; 0 = no budget.
inline uint64_t flow_send_datagrams(const TestSpec& spec) {
  if (!count_mode(spec) || spec.role != Role::sender) return 0;
  return *spec.workload.buffer_count;
}

// UDP count mode, receiver: the datagrams of NTttcp's payload (no header) after which a port's
// flow is over, as NTttcp's own receiver counts N receives: a real NTttcp sender sends no end
// marker. 0 = not a count-mode receiver.
inline uint64_t compat_datagrams_per_flow(const TestSpec& spec) {
  if (!count_mode(spec) || spec.role != Role::receiver) return 0;
  return *spec.workload.buffer_count;
}

}  // namespace xttcp
