// Windows: Winsock start-up (WSAStartup 2.2, once) and local interface addresses from the IP
// Helper's GetAdaptersAddresses.
#include "engine/net/address.hh"

// After winsock2.h (address.hh): iphlpapi needs its types.
#include <iphlpapi.h>

#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace xttcp {

Status start_sockets() {
  static std::once_flag once;
  static int result = 0;
  std::call_once(once, [] {
    WSADATA data{};
    result = WSAStartup(MAKEWORD(2, 2), &data);
  });
  if (result != 0)
    return fail("Winsock: WSAStartup(2.2) failed with error " + std::to_string(result));
  return ok();
}

namespace {

bool same_address(const sockaddr* candidate, const SocketAddress& address) {
  if (candidate == nullptr || candidate->sa_family != address.family()) return false;
  if (address.family() == AF_INET6)
    return std::memcmp(&reinterpret_cast<const sockaddr_in6*>(candidate)->sin6_addr,
                       &reinterpret_cast<const sockaddr_in6*>(&address.storage)->sin6_addr,
                       sizeof(in6_addr)) == 0;
  return reinterpret_cast<const sockaddr_in*>(candidate)->sin_addr.s_addr ==
         reinterpret_cast<const sockaddr_in*>(&address.storage)->sin_addr.s_addr;
}

}  // namespace

bool is_local_address(const SocketAddress& address) {
  if (address.is_any()) return true;
  // All of 127.0.0.0/8 loops back (RFC 1122) and binds, though interfaces list only 127.0.0.1.
  if (address.family() == AF_INET &&
      ntohl(reinterpret_cast<const sockaddr_in*>(&address.storage)->sin_addr.s_addr) >> 24 == 127)
    return true;
  const ULONG flags = GAA_FLAG_SKIP_ANYCAST | GAA_FLAG_SKIP_MULTICAST | GAA_FLAG_SKIP_DNS_SERVER;
  ULONG size = 16 * 1024;
  std::vector<unsigned char> buffer;
  ULONG rc = ERROR_BUFFER_OVERFLOW;
  // The list can grow between the sizing call and the real one: retry a few times.
  for (int attempt = 0; attempt < 4 && rc == ERROR_BUFFER_OVERFLOW; ++attempt) {
    buffer.resize(size);
    rc = GetAdaptersAddresses(static_cast<ULONG>(address.family()), flags, nullptr,
                              reinterpret_cast<IP_ADAPTER_ADDRESSES*>(buffer.data()), &size);
  }
  if (rc != NO_ERROR) return false;
  for (auto* adapter = reinterpret_cast<IP_ADAPTER_ADDRESSES*>(buffer.data()); adapter != nullptr;
       adapter = adapter->Next) {
    for (auto* unicast = adapter->FirstUnicastAddress; unicast != nullptr; unicast = unicast->Next)
      if (same_address(unicast->Address.lpSockaddr, address)) return true;
  }
  return false;
}

}  // namespace xttcp
