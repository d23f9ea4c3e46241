// engine/units: the size, rate, count and seconds parsers and the NTTTCP-style bps formatter
// (iperf3's t_units habit: every parser and formatter has its own small table of cases).
#include <gtest/gtest.h>

#include "base/units.hh"

namespace xttcp {
namespace {

TEST(ParseSize, SuffixesAre1024BasedInEitherCase) {
  EXPECT_EQ(*parse_size("0"), 0u);
  EXPECT_EQ(*parse_size("131072"), 131072u);
  EXPECT_EQ(*parse_size("64k"), 65536u);
  EXPECT_EQ(*parse_size("64K"), 65536u);
  EXPECT_EQ(*parse_size("1m"), 1048576u);
  EXPECT_EQ(*parse_size("1M"), 1048576u);
  EXPECT_EQ(*parse_size("2g"), 2147483648u);
  EXPECT_EQ(*parse_size("2G"), 2147483648u);
  EXPECT_EQ(*parse_size("16777216g"), 16777216ull << 30);
}

TEST(ParseSize, JunkIsRefusedWithTheText) {
  for (const char* bad : {"", "k", "12x", "1.5.2k", "-1", "+1", " 1", "1 ", "1kk", "0x10", "1t"}) {
    auto size = parse_size(bad);
    EXPECT_FALSE(size.has_value()) << "'" << bad << "'";
    if (!size.has_value() && bad[0] != '\0') {
      EXPECT_NE(size.error().message.find(bad), std::string::npos) << size.error().message;
    }
  }
  EXPECT_EQ(parse_size("12x").error().message,
            "'12x' is not a size (a number with an optional k, m or g suffix)");
  EXPECT_FALSE(parse_size("99999999999999999999").has_value());
  EXPECT_FALSE(parse_size("17179869184g").has_value());  // 2^34 GiB overflows 64 bits
}

TEST(ParseSize, FractionsAreAcceptedLikeTheOriginalsAtof) {
  EXPECT_EQ(*parse_size("1.5k"), 1536u);
  EXPECT_EQ(*parse_rate("2.5g"), 2'500'000'000u);
}

TEST(ParseRate, SuffixesAre1000Based) {
  EXPECT_EQ(*parse_rate("1000"), 1000u);
  EXPECT_EQ(*parse_rate("1k"), 1000u);
  EXPECT_EQ(*parse_rate("500m"), 500'000'000u);
  EXPECT_EQ(*parse_rate("500M"), 500'000'000u);
  EXPECT_EQ(*parse_rate("10g"), 10'000'000'000u);
  EXPECT_EQ(*parse_rate("10G"), 10'000'000'000u);
  EXPECT_EQ(*parse_rate("0"), 0u);
}

TEST(ParseRate, JunkIsRefused) {
  for (const char* bad : {"", "g", "fast", "10gb", "-10g", "1e9"})
    EXPECT_FALSE(parse_rate(bad).has_value()) << "'" << bad << "'";
  EXPECT_EQ(parse_rate("fast").error().message,
            "'fast' is not a rate (a number with an optional k, m or g suffix)");
}

TEST(ParseCount, WholeNumbersUpToMax) {
  EXPECT_EQ(*parse_count("0", 10), 0u);
  EXPECT_EQ(*parse_count("10", 10), 10u);
  EXPECT_EQ(*parse_count("18446744073709551615", UINT64_MAX), UINT64_MAX);
  EXPECT_EQ(parse_count("11", 10).error().message, "11 is above the maximum of 10");
  EXPECT_EQ(parse_count("abc", 10).error().message, "'abc' is not a whole number");
  EXPECT_EQ(parse_count("-1", 10).error().message, "'-1' is not a whole number");
  EXPECT_EQ(parse_count("1.5", 10).error().message, "'1.5' is not a whole number");
  EXPECT_EQ(parse_count("4k", 10000).error().message, "'4k' is not a whole number");
  EXPECT_FALSE(parse_count("", 10).has_value());
  EXPECT_FALSE(parse_count("18446744073709551616", UINT64_MAX).has_value());
}

TEST(ParseSeconds, FractionsAndZeroRule) {
  EXPECT_DOUBLE_EQ(*parse_seconds("0.5", false), 0.5);
  EXPECT_DOUBLE_EQ(*parse_seconds("2", false), 2.0);
  EXPECT_DOUBLE_EQ(*parse_seconds(".25", false), 0.25);
  EXPECT_DOUBLE_EQ(*parse_seconds("0", true), 0.0);
  EXPECT_EQ(parse_seconds("0", false).error().message, "seconds must be > 0");
  EXPECT_EQ(parse_seconds("-1", true).error().message, "seconds must be >= 0");
  EXPECT_EQ(parse_seconds("abc", false).error().message, "'abc' is not a number of seconds");
  for (const char* bad : {"", "1s", "nan", "inf", "1,5", " 1"})
    EXPECT_FALSE(parse_seconds(bad, true).has_value()) << "'" << bad << "'";
  EXPECT_FALSE(parse_seconds("40000000", false).has_value());  // more than a year
}

TEST(FormatBps, NtttcpConsoleStyle) {
  EXPECT_EQ(format_bps(15.9e9), "15.90Gbps");
  EXPECT_EQ(format_bps(13.2e9), "13.20Gbps");
  EXPECT_EQ(format_bps(21'094'000'000.0), "21.09Gbps");
  EXPECT_EQ(format_bps(800e6), "800.00Mbps");
  EXPECT_EQ(format_bps(1.5e6), "1.50Mbps");
  EXPECT_EQ(format_bps(64'000.0), "64.00Kbps");
  EXPECT_EQ(format_bps(999.0), "999.00bps");
  EXPECT_EQ(format_bps(0.0), "0.00bps");
  EXPECT_EQ(format_bps(200e9), "200.00Gbps");
  // NTTTCP-for-Linux's edges: a step only when strictly above 1000, and Gbps is the last unit.
  EXPECT_EQ(format_bps(1000.0), "1000.00bps");
  EXPECT_EQ(format_bps(1.5e12), "1500.00Gbps");
}

}  // namespace
}  // namespace xttcp
