// The portable part of addresses: ports, formatting, resolving (Winsock has the same calls).
#include "engine/net/address.hh"

#include <cstring>

namespace xttcp {

uint16_t SocketAddress::port() const {
  if (family() == AF_INET6)
    return ntohs(reinterpret_cast<const sockaddr_in6*>(&storage)->sin6_port);
  return ntohs(reinterpret_cast<const sockaddr_in*>(&storage)->sin_port);
}

void SocketAddress::set_port(uint16_t port) {
  if (family() == AF_INET6)
    reinterpret_cast<sockaddr_in6*>(&storage)->sin6_port = htons(port);
  else
    reinterpret_cast<sockaddr_in*>(&storage)->sin_port = htons(port);
}

bool SocketAddress::is_any() const {
  if (family() == AF_INET6) {
    const auto& a = reinterpret_cast<const sockaddr_in6*>(&storage)->sin6_addr;
    return IN6_IS_ADDR_UNSPECIFIED(&a);
  }
  return reinterpret_cast<const sockaddr_in*>(&storage)->sin_addr.s_addr == htonl(INADDR_ANY);
}

std::string SocketAddress::host() const {
  char text[INET6_ADDRSTRLEN] = {};
  if (family() == AF_INET6)
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&storage)->sin6_addr, text,
              sizeof text);
  else
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&storage)->sin_addr, text,
              sizeof text);
  return text;
}

// Appended piece by piece: GCC 12's "literal" + std::string&& trips a false -Wrestrict at -O3.
std::string SocketAddress::to_string() const {
  const bool v6 = family() == AF_INET6;
  std::string text = v6 ? "[" : "";
  text += host();
  text += v6 ? "]:" : ":";
  text += std::to_string(port());
  return text;
}

std::string peer_network(const SocketAddress& peer) {
  if (peer.family() != AF_INET6) return peer.host();
  in6_addr address = reinterpret_cast<const sockaddr_in6*>(&peer.storage)->sin6_addr;
  char text[INET6_ADDRSTRLEN] = {};
  if (IN6_IS_ADDR_V4MAPPED(&address)) {
    inet_ntop(AF_INET, reinterpret_cast<const unsigned char*>(&address) + 12, text, sizeof text);
    return text;
  }
  std::memset(reinterpret_cast<unsigned char*>(&address) + 8, 0, 8);  // keep the /64
  inet_ntop(AF_INET6, &address, text, sizeof text);
  std::string network = text;
  network += "/64";
  return network;
}

LiteralFamily literal_family(const std::string& host) {
  unsigned char bytes[16];
  if (inet_pton(AF_INET, host.c_str(), bytes) == 1) return LiteralFamily::ipv4;
  const std::string address = host.substr(0, host.find('%'));
  if (inet_pton(AF_INET6, address.c_str(), bytes) == 1) return LiteralFamily::ipv6;
  return LiteralFamily::none;
}

Expected<SocketAddress> resolve(const std::string& host, uint16_t port, bool ipv6) {
  SocketAddress out;
  const int family = ipv6 ? AF_INET6 : AF_INET;
  if (host.empty() || host == "*") {
    out.storage.ss_family = static_cast<decltype(out.storage.ss_family)>(family);
    out.length = ipv6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in);
    out.set_port(port);
    return out;
  }
  if (Status started = start_sockets(); !started) return started.error();
  addrinfo hints{};
  hints.ai_family = family;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = getaddrinfo(host.c_str(), nullptr, &hints, &found);
  if (rc != 0 || found == nullptr)
    return fail("cannot resolve '" + host + "' as an " + (ipv6 ? "IPv6" : "IPv4") +
                " address: " + gai_strerror(rc));
  std::memcpy(&out.storage, found->ai_addr, found->ai_addrlen);
  out.length = static_cast<socklen_t>(found->ai_addrlen);
  freeaddrinfo(found);
  out.set_port(port);
  return out;
}

}  // namespace xttcp
