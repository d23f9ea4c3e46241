#include "base/socket_address.hh"

#include <gtest/gtest.h>

#include <cstring>

namespace xttcp {
namespace {

sockaddr_storage v4(const char* text, unsigned short port) {
  sockaddr_storage storage{};
  auto* in = reinterpret_cast<sockaddr_in*>(&storage);
  in->sin_family = AF_INET;
  in->sin_port = htons(port);
  EXPECT_EQ(inet_pton(AF_INET, text, &in->sin_addr), 1);
  return storage;
}

sockaddr_storage v6(const char* text, unsigned short port) {
  sockaddr_storage storage{};
  auto* in = reinterpret_cast<sockaddr_in6*>(&storage);
  in->sin6_family = AF_INET6;
  in->sin6_port = htons(port);
  EXPECT_EQ(inet_pton(AF_INET6, text, &in->sin6_addr), 1);
  return storage;
}

const sockaddr* as_sockaddr(const sockaddr_storage& storage) {
  return reinterpret_cast<const sockaddr*>(&storage);
}

TEST(SameHostAddress, Ipv4ComparesTheAddressNotThePort) {
  const sockaddr_storage a = v4("10.1.2.3", 5001), same = v4("10.1.2.3", 6001);
  const sockaddr_storage other = v4("10.1.2.4", 5001);
  EXPECT_TRUE(same_host_address(as_sockaddr(a), same));
  EXPECT_FALSE(same_host_address(as_sockaddr(a), other));
}

TEST(SameHostAddress, Ipv6ComparesAllSixteenBytes) {
  const sockaddr_storage a = v6("fd00::1", 5001), same = v6("fd00::1", 1);
  const sockaddr_storage other = v6("fd00::2", 5001);
  EXPECT_TRUE(same_host_address(as_sockaddr(a), same));
  EXPECT_FALSE(same_host_address(as_sockaddr(a), other));
}

TEST(SameHostAddress, FamiliesNeverMatch) {
  // ::ffff:10.1.2.3 holds 10.1.2.3, but an interface's v4 and v6 addresses are distinct entries.
  const sockaddr_storage mapped = v6("::ffff:10.1.2.3", 0), plain = v4("10.1.2.3", 0);
  EXPECT_FALSE(same_host_address(as_sockaddr(mapped), plain));
  EXPECT_FALSE(same_host_address(as_sockaddr(plain), mapped));
}

TEST(SameHostAddress, NullAddressMatchesNothing) {
  EXPECT_FALSE(same_host_address(nullptr, v4("127.0.0.1", 0)));
}

TEST(SameHostAddress, OtherFamiliesMatchNothing) {
  sockaddr_storage unspec{};
  unspec.ss_family = AF_UNSPEC;
  EXPECT_FALSE(same_host_address(as_sockaddr(unspec), unspec));
}

}  // namespace
}  // namespace xttcp
