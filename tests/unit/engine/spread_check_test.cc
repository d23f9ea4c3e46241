// The sender's predicted flows per RX queue against what the receiver's NIC counted per queue.
#include <gtest/gtest.h>

#include "engine/rss/spread_check.hh"

namespace xttcp {
namespace {

SourcePortSpread predicted(std::vector<uint32_t> flows_per_queue) {
  SourcePortSpread spread;
  spread.spread = true;
  spread.queues = static_cast<uint32_t>(flows_per_queue.size());
  spread.flows_per_queue = std::move(flows_per_queue);
  return spread;
}

QueueWindow counted(std::vector<std::optional<uint64_t>> packets,
                    std::vector<std::optional<uint64_t>> bytes = {}) {
  QueueWindow w;
  w.nic = "eth1";
  for (std::size_t q = 0; q < packets.size(); ++q) {
    QueueDelta delta;
    delta.queue = static_cast<uint32_t>(q);
    delta.rx_packets = packets[q];
    if (q < bytes.size()) delta.rx_bytes = bytes[q];
    w.queues.push_back(delta);
  }
  return w;
}

TEST(SpreadCheck, SharesOfFlowsAgainstSharesOfPackets) {
  const QueueWindow w = counted({100, 300, 100, 500});
  const SpreadCheck c = check_spread(predicted({2, 2, 2, 2}), &w);
  EXPECT_EQ(c.unavailable, "");
  EXPECT_EQ(c.measure, "rx_packets");
  ASSERT_EQ(c.measured_share.size(), 4u);
  EXPECT_DOUBLE_EQ(c.predicted_share[0], 0.25);
  EXPECT_DOUBLE_EQ(c.measured_share[3], 0.5);
  EXPECT_EQ(c.widest_queue, 3u);
  EXPECT_DOUBLE_EQ(c.widest_gap, 0.25);
}

TEST(SpreadCheck, BytesWhenTheDriverCountsNoPacketsPerQueue) {
  const QueueWindow w = counted({std::nullopt, std::nullopt}, {600, 200});
  const SpreadCheck c = check_spread(predicted({1, 1}), &w);
  EXPECT_EQ(c.measure, "rx_bytes");
  EXPECT_DOUBLE_EQ(c.measured_share[0], 0.75);
  EXPECT_EQ(c.widest_queue, 0u);
  EXPECT_DOUBLE_EQ(c.widest_gap, 0.25);
}

TEST(SpreadCheck, AnExactMatchHasNoGap) {
  const QueueWindow w = counted({10, 20, 30});
  const SpreadCheck c = check_spread(predicted({1, 2, 3}), &w);
  EXPECT_EQ(c.unavailable, "");
  EXPECT_NEAR(c.widest_gap, 0.0, 1e-12);
}

TEST(SpreadCheck, SaysWhyWhenThereIsNothingToCompare) {
  EXPECT_NE(check_spread(predicted({1, 1}), nullptr).unavailable.find("no queue_window"),
            std::string::npos);

  QueueWindow none;
  none.queues_unavailable = "virtio_net counts no packets per queue";
  EXPECT_NE(check_spread(predicted({1, 1}), &none).unavailable.find("virtio_net"),
            std::string::npos);

  const QueueWindow half = counted({5, std::nullopt});  // one queue's figure missing
  EXPECT_NE(check_spread(predicted({1, 1}), &half).unavailable.find("per queue"),
            std::string::npos);

  const QueueWindow three = counted({1, 1, 1});
  EXPECT_EQ(check_spread(predicted({1, 1}), &three).unavailable,
            "the receiver counted 3 RX queue(s) and the prediction has 2");

  const QueueWindow idle = counted({0, 0});
  EXPECT_EQ(check_spread(predicted({1, 1}), &idle).unavailable,
            "the receiver's RX queues counted nothing over the window");
}

}  // namespace
}  // namespace xttcp
