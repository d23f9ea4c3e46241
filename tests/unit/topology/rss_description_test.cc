// The RSS description's rules (what a receiver may tell a sender) and how a discovered NIC
// becomes one.
#include "topology/nic/rss_description.hh"

#include <gtest/gtest.h>

#include "topology/nic/rss_hash.hh"

namespace xttcp {
namespace {

RssDescription four_queues() {
  RssDescription rss;
  rss.nic = "eth0";
  rss.key.assign(default_rss_key.begin(), default_rss_key.end());
  for (std::uint32_t i = 0; i < 128; ++i) rss.indirection.push_back(i % 4);
  rss.queues = 4;
  rss.hash_fields = {{"tcp4", "src-ip dst-ip src-port dst-port"}, {"udp4", "src-ip dst-ip"}};
  return rss;
}

std::string why(const RssDescription& rss) {
  Status checked = check_rss_description(rss);
  return checked ? "" : checked.error().message;
}

TEST(RssDescription, AValidOnePasses) { EXPECT_EQ(why(four_queues()), ""); }

TEST(RssDescription, EachRuleNamesItsPart) {
  RssDescription rss = four_queues();
  rss.key.assign(53, 1);
  EXPECT_EQ(why(rss), "rss.key: 53 bytes; 1 to 52");
  rss = four_queues();
  rss.key.clear();
  EXPECT_EQ(why(rss), "rss.key: 0 bytes; 1 to 52");
  rss = four_queues();
  rss.indirection.assign(4097, 0);
  EXPECT_EQ(why(rss), "rss.indirection: 4097 entries; 1 to 4096");
  rss = four_queues();
  rss.indirection[7] = 4;
  EXPECT_EQ(why(rss), "rss.indirection: queue 4 of 4 queues");
  rss = four_queues();
  rss.queues = 0;
  EXPECT_EQ(why(rss), "rss.queues: 0; 1 to 4096");
  rss = four_queues();
  rss.hash_fields.emplace_back("sctp4", "src-ip");
  EXPECT_EQ(why(rss), "rss.hash_fields: not one of tcp4, udp4, tcp6, udp6");
  rss = four_queues();
  rss.hash_fields.emplace_back("tcp4", "src-ip");
  EXPECT_EQ(why(rss), "rss.hash_fields.tcp4: given twice");
  rss = four_queues();
  rss.hash_fields[0].second = "src-ip rm -rf";
  EXPECT_NE(why(rss).find("rss.hash_fields.tcp4: unknown field"), std::string::npos);
  rss = four_queues();
  rss.port_queues = {{5001, 9}};
  EXPECT_EQ(why(rss), "rss.port_queues: queue 9 of 4 queues");
  rss = four_queues();
  rss.hash_function = "md5";
  EXPECT_EQ(why(rss), "rss.hash_function: not one of toeplitz, xor, crc32, unknown");
}

TEST(RssDescription, PortsAreHashedOnlyWithBoth) {
  EXPECT_TRUE(hashes_ports("src-ip dst-ip src-port dst-port"));
  EXPECT_FALSE(hashes_ports("src-ip dst-ip"));
  EXPECT_FALSE(hashes_ports("src-ip dst-ip src-port"));
}

TEST(RssDescription, FromADiscoveredNic) {
  NicInfo nic;
  nic.name = "ens5";
  NicRss rss;
  rss.key.assign(default_rss_key.begin(), default_rss_key.end());
  rss.indirection = {0, 1, 2, 3, 0, 1, 2, 3};
  rss.hash_function = 1;
  nic.rss = rss;
  nic.channels = NicChannels{0, 0, 0, 8};  // 8 combined channels, the table uses 4
  nic.hash_fields = {{"tcp4", std::string("src-ip dst-ip src-port dst-port")},
                     {"udp4", fail("not available: Operation not supported")}};
  auto described = rss_description_of(nic);
  ASSERT_TRUE(described) << described.error().message;
  EXPECT_EQ(described->nic, "ens5");
  EXPECT_EQ(described->hash_function, "toeplitz");
  EXPECT_EQ(described->queues, 8u);
  ASSERT_EQ(described->hash_fields.size(), 1u);  // what the NIC did not say is left out
  EXPECT_EQ(described->hash_fields[0].first, "tcp4");

  nic.rss = fail("not available: the driver has no ETHTOOL_GRSSH");
  auto none = rss_description_of(nic);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message, "ens5: not available: the driver has no ETHTOOL_GRSSH");
}

}  // namespace
}  // namespace xttcp
