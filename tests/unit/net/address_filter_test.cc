#include "engine/net/address_filter.hh"

#include <gtest/gtest.h>

namespace xttcp {
namespace {

SocketAddress filter_at(const std::string& host) {
  auto address = resolve(host, 5001, host.find(':') != std::string::npos);
  EXPECT_TRUE(address) << host;
  return *address;
}

SocketAddress v4_mapped(const std::string& v4) { return filter_at("::ffff:" + v4); }

TEST(AddressFilter, EmptyAllowsEveryone) {
  AddressFilter filter;
  EXPECT_TRUE(filter.allows(filter_at("192.0.2.1")));
  EXPECT_TRUE(filter.allows(filter_at("2001:db8::1")));
}

TEST(AddressFilter, Ipv4Blocks) {
  auto filter = AddressFilter::parse("10.0.0.0/8,192.0.2.7");
  ASSERT_TRUE(filter);
  EXPECT_TRUE(filter->allows(filter_at("10.255.1.2")));
  EXPECT_FALSE(filter->allows(filter_at("11.0.0.1")));
  EXPECT_TRUE(filter->allows(filter_at("192.0.2.7")));
  EXPECT_FALSE(filter->allows(filter_at("192.0.2.8")));
  EXPECT_FALSE(filter->allows(filter_at("2001:db8::1")));
}

TEST(AddressFilter, PrefixNotOnAByteBoundary) {
  auto filter = AddressFilter::parse("172.16.0.0/12");
  ASSERT_TRUE(filter);
  EXPECT_TRUE(filter->allows(filter_at("172.31.255.255")));
  EXPECT_FALSE(filter->allows(filter_at("172.32.0.0")));
  EXPECT_FALSE(filter->allows(filter_at("172.15.255.255")));
}

TEST(AddressFilter, Ipv6BlocksAndMappedIpv4) {
  auto filter = AddressFilter::parse("fd00::/8,127.0.0.0/8");
  ASSERT_TRUE(filter);
  EXPECT_TRUE(filter->allows(filter_at("fd12:3456::1")));
  EXPECT_FALSE(filter->allows(filter_at("fe80::1")));
  EXPECT_TRUE(filter->allows(v4_mapped("127.0.0.2")));  // an IPv4 sender on a dual-stack socket
  EXPECT_FALSE(filter->allows(v4_mapped("10.0.0.1")));
}

TEST(AddressFilter, ZeroLengthPrefixMatchesItsFamilyOnly) {
  auto filter = AddressFilter::parse("0.0.0.0/0");
  ASSERT_TRUE(filter);
  EXPECT_TRUE(filter->allows(filter_at("203.0.113.9")));
  EXPECT_FALSE(filter->allows(filter_at("2001:db8::1")));
}

TEST(AddressFilter, RefusesWhatIsNotABlock) {
  for (const char* bad : {"", "10.0.0.0/33", "fd00::/129", "10.0.0.0/", "10.0.0.0/x", "10.1.2.3/8",
                          "host.example", "10.0.0.0/8,", "10.0.0/8"}) {
    auto filter = AddressFilter::parse(bad);
    EXPECT_FALSE(filter) << bad;
  }
  auto host_bits = AddressFilter::parse("10.1.2.3/8");
  ASSERT_FALSE(host_bits);
  EXPECT_NE(host_bits.error().message.find("did you mean 10.1.2.3/32"), std::string::npos)
      << host_bits.error().message;
}

TEST(AddressFilter, BoundedList) {
  std::string list;
  for (size_t i = 0; i <= AddressFilter::max_blocks; ++i)
    list.append(i ? "," : "").append("10.0.0.").append(std::to_string(i % 256));
  EXPECT_FALSE(AddressFilter::parse(list));
}

TEST(AddressFilter, RoundTripsItsBlocks) {
  auto filter = AddressFilter::parse("10.0.0.0/8,fd00::/8,192.0.2.7");
  ASSERT_TRUE(filter);
  ASSERT_EQ(filter->blocks().size(), 3u);
  EXPECT_EQ(filter->blocks()[0].to_string(), "10.0.0.0/8");
  EXPECT_EQ(filter->blocks()[1].to_string(), "fd00::/8");
  EXPECT_EQ(filter->blocks()[2].to_string(), "192.0.2.7/32");
}

}  // namespace
}  // namespace xttcp
