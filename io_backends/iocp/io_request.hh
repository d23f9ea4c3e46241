// What every iocp worker does with an overlapped operation: start it, tell an inline completion
// from a pending one, and read the outcome of a completion. Header-only: the hot path.
#pragma once

#include <chrono>
#include <cstdint>

#include "engine/net/os_socket.hh"

namespace xttcp::iocp {

// How a just-started operation went.
enum class Started {
  pending,  // a completion packet will come through the port
  inline_,  // done already (skip-on-success socket): `bytes` holds the count, no packet follows
  failed,   // refused at once: `error` holds the code, no packet follows
};

struct StartResult {
  Started state = Started::pending;
  DWORD bytes = 0;
  int error = 0;
};

// From the return value of WSARecv/WSASend/... (`succeeded` = it returned 0, or TRUE for the
// extension functions) and its byte count. A success on a socket without skip-on-success still
// posts a packet, so it is pending.
inline StartResult started(bool succeeded, DWORD bytes, bool skips_port_on_success) {
  if (succeeded) {
    if (skips_port_on_success) return {Started::inline_, bytes, 0};
    return {};
  }
  const int error = WSAGetLastError();
  if (error == WSA_IO_PENDING) return {};
  return {Started::failed, 0, error};
}

// The Winsock error of a completion dequeued from the port; 0 = success. `socket` may be closed
// already (INVALID_SOCKET, at the end): then only whether the operation succeeded is known.
inline int completion_error(SOCKET socket, OVERLAPPED* overlapped) {
  if (overlapped->Internal == 0) return 0;  // STATUS_SUCCESS
  if (socket == INVALID_SOCKET) return WSA_OPERATION_ABORTED;
  DWORD bytes = 0, flags = 0;
  if (WSAGetOverlappedResult(socket, overlapped, &bytes, FALSE, &flags)) return 0;
  const int error = WSAGetLastError();
  return error != 0 ? error : static_cast<int>(overlapped->Internal);
}

// Inline completions handled back to back on one socket before the loop moves on: an always
// readable (or writable) socket must not starve the others nor delay `stop`.
inline constexpr int inline_budget = 16;

// The steady clock in ns: datagram send and receive times (Windows has no SO_TIMESTAMPNS;
// libstdc++'s steady_clock reads QueryPerformanceCounter there).
inline uint64_t steady_ns() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

}  // namespace xttcp::iocp
