#pragma once

#include <memory>

#include "engine/backend/backend.hh"

namespace xttcp {

// Winsock overlapped I/O on one completion port per worker (Windows): TCP (AcceptEx/ConnectEx,
// WSARecv/WSASend) and UDP (WSARecvFrom/WSASend), N buffers outstanding per connection (-a).
std::unique_ptr<Backend> make_iocp_backend();

}  // namespace xttcp
