// The Toeplitz hash against Microsoft's published RSS verification vectors (default key), and
// queue prediction through an indirection table.
#include "topology/nic/rss_hash.hh"

#include <arpa/inet.h>

#include <gtest/gtest.h>

#include <string>

namespace xttcp {
namespace {

FlowTuple flow(const std::string& source, std::uint16_t source_port, const std::string& destination,
               std::uint16_t destination_port) {
  FlowTuple tuple;
  tuple.ipv6 = source.find(':') != std::string::npos;
  const int family = tuple.ipv6 ? AF_INET6 : AF_INET;
  EXPECT_EQ(inet_pton(family, source.c_str(), tuple.source.data()), 1) << source;
  EXPECT_EQ(inet_pton(family, destination.c_str(), tuple.destination.data()), 1) << destination;
  tuple.source_port = source_port;
  tuple.destination_port = destination_port;
  return tuple;
}

struct Vector {
  FlowTuple tuple;
  std::uint32_t with_ports;
  std::uint32_t addresses_only;
};

TEST(ToeplitzHash, MatchesTheIpv4VerificationVectors) {
  const Vector vectors[] = {
      {flow("66.9.149.187", 2794, "161.142.100.80", 1766), 0x51ccc178, 0x323e8fc2},
      {flow("199.92.111.2", 14230, "65.69.140.83", 4739), 0xc626b0ea, 0xd718262a},
      {flow("24.19.198.95", 12898, "12.22.207.184", 38024), 0x5c2b394a, 0xd2d0a5de},
      {flow("38.27.205.30", 48228, "209.142.163.6", 2217), 0xafc7327f, 0x82989176},
      {flow("153.39.163.191", 44251, "202.188.127.2", 1303), 0x10e828a2, 0x5d1809c5},
  };
  for (const Vector& v : vectors) {
    EXPECT_EQ(rss_hash(default_rss_key, v.tuple, true), v.with_ports);
    EXPECT_EQ(rss_hash(default_rss_key, v.tuple, false), v.addresses_only);
  }
}

TEST(ToeplitzHash, MatchesTheIpv6VerificationVectors) {
  const Vector vectors[] = {
      {flow("3ffe:2501:200:1fff::7", 2794, "3ffe:2501:200:3::1", 1766), 0x40207d3d, 0x2cc18cd5},
      {flow("3ffe:501:8::260:97ff:fe40:efab", 14230, "ff02::1", 4739), 0xdde51bbf, 0x0f0c461c},
      {flow("3ffe:1900:4545:3:200:f8ff:fe21:67cf", 44251, "fe80::200:f8ff:fe21:67cf", 38024),
       0x02d1feef, 0x4b61e985},
  };
  for (const Vector& v : vectors) {
    EXPECT_EQ(rss_hash(default_rss_key, v.tuple, true), v.with_ports);
    EXPECT_EQ(rss_hash(default_rss_key, v.tuple, false), v.addresses_only);
  }
}

TEST(ToeplitzHash, InputIsAddressesThenPortsInNetworkOrder) {
  FlowTuple tuple = flow("10.0.0.1", 0x1234, "10.0.0.2", 0xabcd);
  EXPECT_EQ(rss_input(tuple, true),
            (std::vector<std::uint8_t>{10, 0, 0, 1, 10, 0, 0, 2, 0x12, 0x34, 0xab, 0xcd}));
  EXPECT_EQ(rss_input(tuple, false).size(), 8u);
}

TEST(ToeplitzHash, AZeroKeyHashesEverythingToZero) {
  const std::array<std::uint8_t, 40> zero{};
  EXPECT_EQ(rss_hash(zero, flow("1.2.3.4", 1, "5.6.7.8", 2), true), 0u);
}

TEST(RssQueue, IndexesTheIndirectionTableByTheHash) {
  const std::vector<std::uint32_t> table = {0, 1, 2, 3, 0, 1, 2, 3};
  EXPECT_EQ(rss_queue(0x51ccc178, table), static_cast<int>(table[0x51ccc178 % 8]));
  EXPECT_EQ(rss_queue(5, table), 1);
  EXPECT_EQ(rss_queue(15, table), 3);
  EXPECT_EQ(rss_queue(7, {}), -1);
}

TEST(RssQueue, PredictsTheQueueOfAVerificationFlow) {
  // 0x51ccc178 % 128 = 0x78 = 120; a 128-entry table spreading over 4 queues round-robin.
  std::vector<std::uint32_t> table(128);
  for (std::size_t i = 0; i < table.size(); ++i) table[i] = static_cast<std::uint32_t>(i % 4);
  const std::uint32_t hash =
      rss_hash(default_rss_key, flow("66.9.149.187", 2794, "161.142.100.80", 1766), true);
  EXPECT_EQ(rss_queue(hash, table), 120 % 4);
}

}  // namespace
}  // namespace xttcp
