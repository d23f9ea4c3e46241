// NTttcp for Windows' -rb / -sb on Linux data sockets: SO_RCVBUF / SO_SNDBUF when >= 0 (0 is
// allowed: the kernel then keeps its minimum). Control path only.
#pragma once

#include <string>

#include "base/status.hh"
#include "engine/spec.hh"

namespace xttcp {

// Sets what `spec` asks on `fd` (a connected socket, or a listener: accepted sockets inherit
// it). The -sb 0 that -a n implies is skipped (IoOptions::send_buffer_implied). Error:
// "-rb 65536: SO_RCVBUF: <reason>".
Status apply_socket_buffers(int fd, const TestSpec& spec);

// What the kernel made of them, for the worker's notes ("" when nothing was asked), e.g.
// "-rb 65536: SO_RCVBUF is 131072 (Linux doubles the value asked for its bookkeeping)".
std::string socket_buffer_note(int fd, const TestSpec& spec);

}  // namespace xttcp
