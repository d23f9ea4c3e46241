// Per-queue counters from each driver's ETHTOOL_GSTATS names (fixtures made from the drivers'
// public names: virtio_net of older kernels and of 6.18 (this machine), veth, ena, gve, mlx5,
// mana).
#include "topology/nic/queue_stats.hh"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace xttcp {
namespace {

std::map<int, QueueCounters> gstats_fixture(const std::string& name) {
  std::ifstream in(std::string(NIC_FIXTURE_DIR) + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_FALSE(text.str().empty()) << name;
  return map_queue_stats(parse_stat_lines(text.str()));
}

using Figure = std::optional<std::uint64_t>;

void expect_queue(const std::map<int, QueueCounters>& queues, int queue, Figure rx_packets,
                  Figure rx_bytes, Figure tx_packets, Figure tx_bytes) {
  const auto found = queues.find(queue);
  ASSERT_NE(found, queues.end()) << "queue " << queue;
  EXPECT_EQ(found->second.rx_packets, rx_packets) << "queue " << queue;
  EXPECT_EQ(found->second.rx_bytes, rx_bytes) << "queue " << queue;
  EXPECT_EQ(found->second.tx_packets, tx_packets) << "queue " << queue;
  EXPECT_EQ(found->second.tx_bytes, tx_bytes) << "queue " << queue;
}

TEST(QueueStats, VirtioNetTakesItsTotalsNotItsXdpShare) {
  const auto queues = gstats_fixture("gstats_virtio_net.txt");
  ASSERT_EQ(queues.size(), 2u);
  expect_queue(queues, 0, 1000, 1500000, 500, 33000);
  expect_queue(queues, 1, 3000, 4500000, 700, 46200);
}

TEST(QueueStats, RecentVirtioNetHasNoPerQueueFigures) {
  EXPECT_TRUE(gstats_fixture("gstats_virtio_net_6_18.txt").empty());
}

TEST(QueueStats, VethCountsItsNapiPath) {
  const auto queues = gstats_fixture("gstats_veth.txt");
  ASSERT_EQ(queues.size(), 2u);
  expect_queue(queues, 0, 10, 15140, std::nullopt, std::nullopt);
  expect_queue(queues, 1, 20, 30280, std::nullopt, std::nullopt);
}

TEST(QueueStats, Ena) {
  const auto queues = gstats_fixture("gstats_ena.txt");
  ASSERT_EQ(queues.size(), 2u);
  expect_queue(queues, 0, 90000, 135000000, 4100, 270600);
  expect_queue(queues, 1, 30000, 45000000, 4000, 264000);
}

TEST(QueueStats, GveBytesOnly) {
  const auto queues = gstats_fixture("gstats_gve.txt");
  ASSERT_EQ(queues.size(), 2u);
  expect_queue(queues, 0, std::nullopt, 90000000, std::nullopt, 264000);
  expect_queue(queues, 1, std::nullopt, 90000000, std::nullopt, 264000);
}

TEST(QueueStats, Mlx5) {
  const auto queues = gstats_fixture("gstats_mlx5.txt");
  ASSERT_EQ(queues.size(), 2u);
  expect_queue(queues, 0, 10000, 15000000, 300, 19800);
  expect_queue(queues, 1, 40000, 60000000, 900, 59400);
}

TEST(QueueStats, Mana) {
  const auto queues = gstats_fixture("gstats_mana.txt");
  ASSERT_EQ(queues.size(), 2u);
  expect_queue(queues, 0, 25000, 37500000, 1200, 79200);
  expect_queue(queues, 1, 25000, 37500000, 1200, 79200);
}

TEST(QueueStats, NamesThatOnlyLookAlikeAreLeftOut) {
  const auto queues = map_queue_stats({{"rx-_packets", 1},
                                       {"rx-1x_packets", 1},
                                       {"rx_queue_-1_packets", 1},
                                       {"rx_queue_123456_packets", 1},
                                       {"rx_packets", 1},
                                       {"rx0_xdp_drops", 1}});
  EXPECT_TRUE(queues.empty());
}

}  // namespace
}  // namespace xttcp
