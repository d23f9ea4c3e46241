// -m PORTS,CPU,ADDR on its own (how it combines with other options is in linux_dialect_test).
#include <gtest/gtest.h>

#include "tools/cli/mapping.hh"

namespace xttcp {
namespace {

TEST(Mapping, AllFields) {
  auto mapping = parse_mapping("8,3,192.168.1.1", 4);
  ASSERT_TRUE(mapping.has_value()) << mapping.error().message;
  EXPECT_EQ(mapping->ports, 8u);
  EXPECT_EQ(mapping->cpu, 3);
  EXPECT_EQ(mapping->address, "192.168.1.1");
}

TEST(Mapping, StarsAndMissingFieldsMeanNotGiven) {
  for (const char* text : {"16,*,*", ",,", ",*", "16", "16,"}) {
    auto mapping = parse_mapping(text, 4);
    ASSERT_TRUE(mapping.has_value()) << text << ": " << mapping.error().message;
    EXPECT_FALSE(mapping->cpu.has_value()) << text;
    EXPECT_EQ(mapping->address, "") << text;
  }
  EXPECT_FALSE(parse_mapping(",,10.0.0.1", 4)->ports.has_value());
  EXPECT_EQ(parse_mapping(",,10.0.0.1", 4)->address, "10.0.0.1");
}

TEST(Mapping, Ipv6AddressKeepsItsColons) {
  EXPECT_EQ(parse_mapping("2,*,fe80::1%eth0", 4)->address, "fe80::1%eth0");
}

TEST(Mapping, PortsAreNotClampedHere) { EXPECT_EQ(parse_mapping("100000", 4)->ports, 100000u); }

TEST(Mapping, CpuMustExist) {
  EXPECT_EQ(parse_mapping("1,0", 1)->cpu, 0);
  EXPECT_EQ(parse_mapping("1,3", 4)->cpu, 3);
  auto missing = parse_mapping("1,4", 4);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().message, "CPU 4 does not exist (this machine has 4 CPUs: 0..3)");
}

TEST(Mapping, Errors) {
  EXPECT_EQ(parse_mapping("", 4).error().message,
            "empty mapping (expected PORTS,CPU,ADDR such as 8,*,10.0.0.1)");
  EXPECT_EQ(parse_mapping("0,*", 4).error().message, "ports must be at least 1 in '0,*'");
  EXPECT_EQ(parse_mapping("x", 4).error().message, "ports 'x' is not a whole number");
  EXPECT_EQ(parse_mapping("1,cpu0", 4).error().message, "CPU 'cpu0' is not '*' or a CPU id");
  EXPECT_EQ(parse_mapping("1,*,a,b", 4).error().message,
            "'1,*,a,b' has more than 3 fields (expected PORTS,CPU,ADDR such as 8,*,10.0.0.1)");
}

}  // namespace
}  // namespace xttcp
