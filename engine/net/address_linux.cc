// Linux: local interface addresses from getifaddrs; sockets need no start-up.
#include <ifaddrs.h>

#include <cstring>

#include "engine/net/address.hh"

namespace xttcp {

Status start_sockets() { return ok(); }

bool is_local_address(const SocketAddress& address) {
  if (address.is_any()) return true;
  // All of 127.0.0.0/8 loops back (RFC 1122) and binds, though interfaces list only 127.0.0.1.
  if (address.family() == AF_INET &&
      ntohl(reinterpret_cast<const sockaddr_in*>(&address.storage)->sin_addr.s_addr) >> 24 == 127)
    return true;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return false;
  bool found = false;
  for (ifaddrs* i = list; i != nullptr && !found; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != address.family()) continue;
    if (address.family() == AF_INET6) {
      found = std::memcmp(&reinterpret_cast<sockaddr_in6*>(i->ifa_addr)->sin6_addr,
                          &reinterpret_cast<const sockaddr_in6*>(&address.storage)->sin6_addr,
                          sizeof(in6_addr)) == 0;
    } else {
      found = reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr.s_addr ==
              reinterpret_cast<const sockaddr_in*>(&address.storage)->sin_addr.s_addr;
    }
  }
  freeifaddrs(list);
  return found;
}

}  // namespace xttcp
