// Socket addresses: parse numeric or named hosts for IPv4/IPv6 and format them back.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.hh"
#include "engine/net/os_socket.hh"

namespace xttcp {

struct SocketAddress {
  sockaddr_storage storage{};
  socklen_t length = 0;

  int family() const { return storage.ss_family; }
  const sockaddr* get() const { return reinterpret_cast<const sockaddr*>(&storage); }
  sockaddr* get() { return reinterpret_cast<sockaddr*>(&storage); }
  uint16_t port() const;
  void set_port(uint16_t port);
  bool is_any() const;
  std::string host() const;       // "127.0.0.1", "::1"
  std::string to_string() const;  // "127.0.0.1:5001", "[::1]:5001"
};

// host "" or "*" means the wildcard address of the family.
Expected<SocketAddress> resolve(const std::string& host, uint16_t port, bool ipv6);

// True when `address` is assigned to a local interface (or is the wildcard). Per platform:
// address_linux.cc (getifaddrs), address_windows.cc (GetAdaptersAddresses).
bool is_local_address(const SocketAddress& address);

}  // namespace xttcp
