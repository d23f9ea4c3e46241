// The dpdk backend: stateless UDP over Ethernet/IPv4 on a DPDK port, kernel bypass. No DPDK
// header here: the rest of the tree is compiled without DPDK's flags.
#pragma once

#include <memory>

#include "engine/backend/backend.hh"

namespace xttcp {

std::unique_ptr<Backend> make_dpdk_backend();

}  // namespace xttcp
