// Specs the engine tests start from.
#pragma once

#include <cstdint>

#include "engine/spec.hh"

namespace xttcp::test {

// A sender of `ports` x `threads` x `conns` connections, everything else at its default.
inline TestSpec sender_spec(uint32_t ports, uint32_t threads, uint32_t conns) {
  TestSpec spec;
  spec.role = Role::sender;
  spec.layout.ports = ports;
  spec.layout.threads_per_port = threads;
  spec.layout.conns_per_thread = conns;
  return spec;
}

}  // namespace xttcp::test
