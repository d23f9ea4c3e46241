// Addresses on both OSes: numeric IPv4/IPv6 resolve and format back, wildcards, ports, and the
// loopback address counts as local.
#include "engine/net/address.hh"

#include <gtest/gtest.h>

namespace xttcp {
namespace {

TEST(Address, ResolvesAndFormatsIpv4) {
  auto address = resolve("127.0.0.1", 5001, false);
  ASSERT_TRUE(address.has_value()) << address.error().message;
  EXPECT_EQ(address->family(), AF_INET);
  EXPECT_EQ(address->port(), 5001);
  EXPECT_EQ(address->host(), "127.0.0.1");
  EXPECT_EQ(address->to_string(), "127.0.0.1:5001");
  EXPECT_FALSE(address->is_any());
  address->set_port(6000);
  EXPECT_EQ(address->to_string(), "127.0.0.1:6000");
}

TEST(Address, ResolvesAndFormatsIpv6) {
  auto address = resolve("::1", 5001, true);
  ASSERT_TRUE(address.has_value()) << address.error().message;
  EXPECT_EQ(address->family(), AF_INET6);
  EXPECT_EQ(address->to_string(), "[::1]:5001");
}

TEST(Address, WildcardIsAny) {
  for (const char* host : {"", "*"}) {
    auto v4 = resolve(host, 80, false);
    ASSERT_TRUE(v4.has_value());
    EXPECT_TRUE(v4->is_any());
    EXPECT_EQ(v4->to_string(), "0.0.0.0:80");
    auto v6 = resolve(host, 80, true);
    ASSERT_TRUE(v6.has_value());
    EXPECT_TRUE(v6->is_any());
    EXPECT_EQ(v6->to_string(), "[::]:80");
  }
}

TEST(Address, WrongFamilyIsOneClearLine) {
  auto address = resolve("127.0.0.1", 1, true);
  ASSERT_FALSE(address.has_value());
  EXPECT_TRUE(address.error().message.starts_with("cannot resolve '127.0.0.1' as an IPv6 address"))
      << address.error().message;
}

TEST(Address, LoopbackAndWildcardAreLocal) {
  auto loopback = resolve("127.0.0.1", 0, false);
  ASSERT_TRUE(loopback.has_value());
  EXPECT_TRUE(is_local_address(*loopback));
  EXPECT_TRUE(is_local_address(*resolve("*", 0, false)));
  // The whole 127.0.0.0/8 loops back, though interfaces list only 127.0.0.1.
  EXPECT_TRUE(is_local_address(*resolve("127.0.0.2", 0, false)));
  EXPECT_TRUE(is_local_address(*resolve("127.255.0.9", 0, false)));
  EXPECT_FALSE(is_local_address(*resolve("128.0.0.1", 0, false)));
  auto documentation = resolve("192.0.2.1", 0, false);  // TEST-NET-1: never assigned here
  ASSERT_TRUE(documentation.has_value());
  EXPECT_FALSE(is_local_address(*documentation));
}

}  // namespace
}  // namespace xttcp
