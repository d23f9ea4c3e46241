#pragma once

#include <memory>

#include "engine/backend/backend.hh"
#include "io_backends/uring/probe.hh"

namespace xttcp {

// Kernel TCP sockets driven through one io_uring per worker. The kernel is probed on the first
// probe()/capabilities()/make_worker() call (XTTCP_URING_DISABLE is read then).
std::unique_ptr<Backend> make_uring_backend();

// The same backend with a given probe result (tests).
std::unique_ptr<Backend> make_uring_backend(const UringCapabilities& caps);

}  // namespace xttcp
