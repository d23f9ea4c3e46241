#pragma once

#include <memory>

#include "engine/backend/backend.hh"

namespace xttcp {

// Kernel TCP sockets, non-blocking, many connections per worker on one epoll instance.
std::unique_ptr<Backend> make_epoll_backend();

}  // namespace xttcp
