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

// The network a peer speaks from, for bounds per peer: its IPv4 address (an IPv4-mapped IPv6 one
// included), or the /64 prefix of an IPv6 address, which one host commonly holds whole
// ("10.0.0.9", "2001:db8:0:1::/64").
std::string peer_network(const SocketAddress& peer);

// host "" or "*" means the wildcard address of the family.
Expected<SocketAddress> resolve(const std::string& host, uint16_t port, bool ipv6);

// The family an address literal is written in, without any lookup: ipv4 for "10.0.0.1", ipv6
// for "::1" or "fe80::1%eth0" (a zone after '%'); none for a name or anything else. A command
// line's literal chooses its family by itself; only a name needs -6.
enum class LiteralFamily { none, ipv4, ipv6 };
LiteralFamily literal_family(const std::string& host);

// True when `address` is assigned to a local interface (or is the wildcard). Per platform:
// address_linux.cc (getifaddrs), address_windows.cc (GetAdaptersAddresses).
bool is_local_address(const SocketAddress& address);

}  // namespace xttcp
