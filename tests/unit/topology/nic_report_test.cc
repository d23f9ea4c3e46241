// `xttcp topology`'s NIC text, its tuning warnings and placement facts, from NicInfo values made
// here (no machine read).
#include "topology/nic/nic_report.hh"

#include <gtest/gtest.h>

namespace xttcp {
namespace {

// 8 CPUs, one per core, NUMA nodes 0 (CPUs 0-3) and 1 (CPUs 4-7).
Topology two_nodes() {
  Topology topology;
  for (int cpu = 0; cpu < 8; ++cpu) topology.cpus.push_back({cpu, cpu, 0, cpu / 4});
  return topology;
}

NicIrq irq(int number, QueueKind kind, int queue, std::vector<int> cpus) {
  NicIrq out;
  out.irq = number;
  out.kind = kind;
  out.queue = queue;
  out.name = "eth0-Tx-Rx-" + std::to_string(queue);
  out.affinity = cpus;
  out.effective_affinity = cpus;
  return out;
}

// An ENA-like NIC on node 1: 4 combined queues (the driver allows 8), 100 Gb/s, MTU 1500 of 9001.
NicInfo ena(std::vector<int> irq_cpus) {
  NicInfo nic;
  nic.name = "eth0";
  nic.driver = NicDriver{"ena", "2.8.0g", "", "0000:00:05.0"};
  nic.numa_node = 1;
  nic.mtu = 1500;
  nic.max_mtu = 9001;
  nic.speed_mbps = 100000;
  nic.channels = NicChannels{0, 0, 0, 4, 0, 0, 0, 8};
  std::vector<NicIrq> irqs;
  for (int q = 0; q < 4; ++q) irqs.push_back(irq(25 + q, QueueKind::combined, q, {irq_cpus[q]}));
  irqs.push_back(irq(24, QueueKind::other, -1, {0}));
  nic.irqs = irqs;
  for (int q = 0; q < 4; ++q) nic.steering.push_back({QueueKind::rx, q, std::vector<int>{}});
  return nic;
}

TuningFacts roomy() {
  TuningFacts facts;
  facts.rmem_max = facts.wmem_max = facts.tcp_rmem_max = facts.tcp_wmem_max = 64LL << 20;
  facts.irqbalance_running = false;
  return facts;
}

bool has(const std::vector<std::string>& warnings, const std::string& text) {
  for (const std::string& w : warnings) {
    if (w.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(NicWarnings, AWellSpreadNicOnOneNodeGivesOnlyTheMtuAndQueueCountWarnings) {
  Topology one_node = two_nodes();
  for (CpuInfo& cpu : one_node.cpus) cpu.numa_node = 0;
  NicInfo nic = ena({0, 1, 2, 3});
  nic.numa_node = 0;
  std::vector<std::string> warnings = nic_warnings(nic, one_node, roomy());
  EXPECT_EQ(warnings.size(), 2u) << ::testing::PrintToString(warnings);
  EXPECT_TRUE(has(warnings, "4 RX queue(s) for 8 cores")) << ::testing::PrintToString(warnings);
  EXPECT_TRUE(has(warnings, "the driver allows 8 combined channels"));
  EXPECT_TRUE(has(warnings, "MTU is 1500 and the NIC allows 9001"));
}

TEST(NicWarnings, EveryProblemATuningGuideNames) {
  NicInfo nic = ena({0, 0, 0, 0});
  nic.steering[1].cpus = std::vector<int>{4, 5};
  TuningFacts facts = roomy();
  facts.rmem_max = 212992;
  facts.irqbalance_running = true;
  std::vector<std::string> warnings = nic_warnings(nic, two_nodes(), facts);
  const std::string all = ::testing::PrintToString(warnings);
  EXPECT_TRUE(has(warnings, "all 4 queue IRQs of eth0 land on CPU 0")) << all;
  EXPECT_TRUE(has(warnings, "eth0 is on NUMA node 1: workers on node(s) 0")) << all;
  EXPECT_TRUE(has(warnings, "RPS is on for eth0 rx-1 (CPUs 4-5)")) << all;
  EXPECT_TRUE(has(warnings, "irqbalance is running")) << all;
  // 100 Gb/s x 1 ms = 12.5 MB; 208 KiB is below it.
  EXPECT_TRUE(has(warnings,
                  "net.core.rmem_max is 208 KiB, below the bandwidth-delay product "
                  "of eth0 (100000 Mb/s x 1 ms RTT = 11.9 MiB)"))
      << all;
  EXPECT_FALSE(has(warnings, "wmem_max")) << all;
}

TEST(NicWarnings, WhatTheMachineDidNotSayWarnsOfNothing) {
  NicInfo nic;
  nic.name = "veth0";
  std::vector<std::string> warnings = nic_warnings(nic, two_nodes(), TuningFacts{});
  EXPECT_TRUE(warnings.empty()) << ::testing::PrintToString(warnings);
}

TEST(DescribeNic, TableRowsGoQueueIrqCpusCoreNode) {
  NicInfo nic = ena({4, 5, 6, 7});
  nic.rss = fail("not available: the driver does not report the RSS table and key (ETHTOOL_GRSSH)");
  const std::string text = describe_nic(nic, two_nodes(), roomy());
  EXPECT_NE(text.find("NIC eth0\n  driver: ena 2.8.0g (firmware -, bus 0000:00:05.0)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  combined1      26  5            5            5/1        eth0-Tx-Rx-1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  RSS: not available: the driver does not report"), std::string::npos);
  EXPECT_NE(text.find("  RPS rx-0: off\n"), std::string::npos) << text;
}

TEST(PlacementFacts, RxAndCombinedQueueCpusInQueueOrder) {
  Expected<NicPlacementFacts> facts = placement_facts(ena({4, 5, 6, 7}));
  ASSERT_TRUE(facts);
  EXPECT_EQ(facts->numa_node, 1);
  EXPECT_EQ(facts->rx_queue_cpus, (std::vector<std::vector<int>>{{4}, {5}, {6}, {7}}));
  NicInfo veth;
  veth.name = "veth0";
  veth.irqs = fail("not available: veth0 is a virtual interface (no device, no IRQ)");
  Expected<NicPlacementFacts> none = placement_facts(veth);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message,
            "veth0 queue IRQs: not available: veth0 is a virtual interface (no device, no IRQ)");
}

}  // namespace
}  // namespace xttcp
