// Which peers a receiver serves (--allow): a list of CIDR blocks, IPv4 and IPv6. An IPv4 peer
// seen on an IPv6 socket (::ffff:a.b.c.d) matches the IPv4 blocks.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.hh"
#include "engine/net/address.hh"

namespace xttcp {

struct CidrBlock {
  bool ipv6 = false;
  std::array<uint8_t, 16> prefix{};  // network byte order; IPv4 uses the first 4 bytes
  uint32_t bits = 0;                 // prefix length: 0..32 (IPv4), 0..128 (IPv6)

  std::string to_string() const;  // "10.0.0.0/8", "fd00::/8"
};

// "10.0.0.0/8", "192.0.2.7" (= /32), "fd00::/8", "::1" (= /128). Host bits must be zero
// ("10.1.2.3/8" is refused: the user probably meant something else).
Expected<CidrBlock> parse_cidr(std::string_view text);

class AddressFilter {
 public:
  // An empty filter allows everyone (NTttcp's behaviour).
  AddressFilter() = default;
  // A comma-separated list of blocks, each as parse_cidr takes it; at most max_blocks.
  static constexpr size_t max_blocks = 256;
  static Expected<AddressFilter> parse(std::string_view list);
  static Expected<AddressFilter> from(const std::vector<std::string>& blocks);

  bool empty() const { return blocks_.empty(); }
  bool allows(const SocketAddress& peer) const;
  const std::vector<CidrBlock>& blocks() const { return blocks_; }

 private:
  std::vector<CidrBlock> blocks_;
};

}  // namespace xttcp
