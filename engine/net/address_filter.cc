#include "engine/net/address_filter.hh"

#include <charconv>
#include <cstring>

#include <fmt/format.h>

namespace xttcp {

namespace {

bool matches(const CidrBlock& block, const uint8_t* address) {
  const uint32_t whole = block.bits / 8;
  if (std::memcmp(block.prefix.data(), address, whole) != 0) return false;
  const uint32_t rest = block.bits % 8;
  if (rest == 0) return true;
  const auto mask = static_cast<uint8_t>(0xff << (8 - rest));
  return (block.prefix[whole] & mask) == (address[whole] & mask);
}

bool host_bits_zero(const CidrBlock& block) {
  const uint32_t size = block.ipv6 ? 16 : 4;
  for (uint32_t bit = block.bits; bit < size * 8; ++bit)
    if (block.prefix[bit / 8] & (0x80 >> (bit % 8))) return false;
  return true;
}

}  // namespace

std::string CidrBlock::to_string() const {
  char text[INET6_ADDRSTRLEN] = {};
  inet_ntop(ipv6 ? AF_INET6 : AF_INET, prefix.data(), text, sizeof text);
  return std::string(text) + "/" + std::to_string(bits);
}

Expected<CidrBlock> parse_cidr(std::string_view text) {
  const size_t slash = text.find('/');
  const std::string address(text.substr(0, slash));
  CidrBlock block;
  block.ipv6 = address.find(':') != std::string::npos;
  if (inet_pton(block.ipv6 ? AF_INET6 : AF_INET, address.c_str(), block.prefix.data()) != 1)
    return fail(fmt::format(
        "'{}' is not an address or CIDR block (e.g. 10.0.0.0/8, 192.0.2.7, fd00::/8)", text));
  const uint32_t max_bits = block.ipv6 ? 128 : 32;
  block.bits = max_bits;
  if (slash != std::string_view::npos) {
    const std::string_view length = text.substr(slash + 1);
    const auto [end, error] =
        std::from_chars(length.data(), length.data() + length.size(), block.bits);
    if (error != std::errc() || end != length.data() + length.size() || length.empty() ||
        block.bits > max_bits)
      return fail(fmt::format("'{}': the prefix length must be 0..{}", text, max_bits));
  }
  if (!host_bits_zero(block))
    return fail(fmt::format("'{}' has bits set after the /{} prefix (did you mean {}/{}?)", text,
                            block.bits, text.substr(0, slash), max_bits));
  return block;
}

Expected<AddressFilter> AddressFilter::parse(std::string_view list) {
  std::vector<std::string> blocks;
  while (true) {
    const size_t comma = list.find(',');
    blocks.emplace_back(list.substr(0, comma));
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return from(blocks);
}

Expected<AddressFilter> AddressFilter::from(const std::vector<std::string>& blocks) {
  if (blocks.size() > max_blocks)
    return fail("at most " + std::to_string(max_blocks) + " address blocks");
  AddressFilter filter;
  for (const std::string& text : blocks) {
    if (text.empty()) return fail("an empty entry in the address block list");
    auto block = parse_cidr(text);
    if (!block) return block.error();
    filter.blocks_.push_back(*block);
  }
  return filter;
}

bool AddressFilter::allows(const SocketAddress& peer) const {
  if (blocks_.empty()) return true;
  const uint8_t* v4 = nullptr;
  const uint8_t* v6 = nullptr;
  if (peer.family() == AF_INET) {
    v4 = reinterpret_cast<const uint8_t*>(
        &reinterpret_cast<const sockaddr_in*>(&peer.storage)->sin_addr);
  } else if (peer.family() == AF_INET6) {
    v6 = reinterpret_cast<const uint8_t*>(
        &reinterpret_cast<const sockaddr_in6*>(&peer.storage)->sin6_addr);
    static constexpr uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (std::memcmp(v6, mapped, sizeof mapped) == 0) v4 = v6 + 12;
  } else {
    return false;
  }
  for (const CidrBlock& block : blocks_) {
    if (block.ipv6 ? (v6 != nullptr && matches(block, v6)) : (v4 != nullptr && matches(block, v4)))
      return true;
  }
  return false;
}

}  // namespace xttcp
