// Comparing socket addresses by host (IPv4 or IPv6 address; the port and scope are not compared).
#pragma once

#include <cstring>

#include "base/socket_headers.hh"

namespace xttcp {

// True when `a` is the same address family and host address as `b`. A null `a` (an interface
// without an address) matches nothing.
inline bool same_host_address(const sockaddr* a, const sockaddr_storage& b) {
  if (a == nullptr || a->sa_family != b.ss_family) return false;
  if (a->sa_family == AF_INET)
    return reinterpret_cast<const sockaddr_in*>(a)->sin_addr.s_addr ==
           reinterpret_cast<const sockaddr_in*>(&b)->sin_addr.s_addr;
  if (a->sa_family == AF_INET6)
    return std::memcmp(&reinterpret_cast<const sockaddr_in6*>(a)->sin6_addr,
                       &reinterpret_cast<const sockaddr_in6*>(&b)->sin6_addr,
                       sizeof(in6_addr)) == 0;
  return false;
}

}  // namespace xttcp
