// Each --placement mode on machines described by hwloc XML (loaded through hwloc's XML import):
// 2 packages x 2 NUMA nodes x 8 cores with the NIC on node 1, and 1 package with SMT.
#include "topology/placement.hh"

#include <gtest/gtest.h>

#include "topology/topology_xml.hh"

namespace xttcp {
namespace {

// Skips only in builds without hwloc; a file hwloc cannot read fails the test.
#define LOAD_OR_SKIP(machine, file, nic)                                         \
  Expected<XmlMachine> loaded_##machine =                                        \
      load_xml_machine(std::string(NIC_FIXTURE_DIR) + "/" + (file), nic);        \
  if (!loaded_##machine &&                                                       \
      loaded_##machine.error().message.find("needs hwloc") != std::string::npos) \
    GTEST_SKIP() << loaded_##machine.error().message;                            \
  ASSERT_TRUE(loaded_##machine) << loaded_##machine.error().message;             \
  const XmlMachine& machine = *loaded_##machine

std::vector<int> first(const std::vector<int>& cpus, std::size_t n) {
  return {cpus.begin(), cpus.begin() + static_cast<std::ptrdiff_t>(std::min(n, cpus.size()))};
}

// Four RX queues whose IRQs land on CPUs 8, 10, 12, 14 (all on node 1, where the NIC is).
NicPlacementFacts numa_nic(const XmlMachine& machine) {
  return NicPlacementFacts{"ens5", machine.nic_numa_node, {{8}, {10}, {12}, {14}}};
}

constexpr const char* kNumaMachine = "hwloc_2pkg_4numa_32core_nic_node1.xml";
constexpr const char* kSmtMachine = "hwloc_1pkg_4core_smt2.xml";

TEST(XmlMachine, ReadsPackagesNodesCoresAndTheNicsNode) {
  LOAD_OR_SKIP(machine, kNumaMachine, "ens5");
  EXPECT_EQ(machine.topology.cpus.size(), 32u);
  EXPECT_EQ(numa_nodes(machine.topology), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(machine.nic_numa_node, 1);
  EXPECT_EQ(format_cpu_list(machine.nic_local_cpus), "8-15");
  EXPECT_EQ(machine.topology.cpus[8].package, 0);
  EXPECT_EQ(machine.topology.cpus[16].package, 1);
  EXPECT_FALSE(load_xml_machine(std::string(NIC_FIXTURE_DIR) + "/" + kNumaMachine, "eth9"));
  EXPECT_FALSE(load_xml_machine("/nonexistent.xml", "eth0"));
}

TEST(Placement, SpreadIsTodaysOrderWhateverTheNic) {
  LOAD_OR_SKIP(machine, kNumaMachine, "ens5");
  Placement placement = place_workers(machine.topology, PlacementMode::spread, numa_nic(machine));
  EXPECT_EQ(placement.cpus, placement_order(machine.topology));
  EXPECT_EQ(first(placement.cpus, 4), (std::vector<int>{0, 8, 16, 24}));  // one per node first
  EXPECT_EQ(placement.used, PlacementMode::spread);
}

TEST(Placement, NumaKeepsWorkersOnTheNicsNode) {
  LOAD_OR_SKIP(machine, kNumaMachine, "ens5");
  Placement placement = place_workers(machine.topology, PlacementMode::numa, numa_nic(machine));
  EXPECT_EQ(placement.used, PlacementMode::numa);
  EXPECT_EQ(format_cpu_list(placement.cpus), "8-15");
  EXPECT_NE(placement.why.find("node 1"), std::string::npos) << placement.why;
}

TEST(Placement, IrqPutsWorkerIOnTheCpuOfRxQueueI) {
  LOAD_OR_SKIP(machine, kNumaMachine, "ens5");
  Placement placement = place_workers(machine.topology, PlacementMode::irq, numa_nic(machine));
  EXPECT_EQ(placement.used, PlacementMode::irq);
  EXPECT_EQ(first(placement.cpus, 5), (std::vector<int>{8, 10, 12, 14, 0}));
  EXPECT_EQ(placement.cpus.size(), 32u);  // workers beyond the queues still get every CPU
}

TEST(Placement, AvoidIrqLeavesOutEveryCoreThatTakesAQueueInterrupt) {
  LOAD_OR_SKIP(machine, kNumaMachine, "ens5");
  Placement placement =
      place_workers(machine.topology, PlacementMode::avoid_irq, numa_nic(machine));
  EXPECT_EQ(placement.used, PlacementMode::avoid_irq);
  EXPECT_EQ(placement.cpus.size(), 28u);
  for (int cpu : {8, 10, 12, 14})
    EXPECT_EQ(std::count(placement.cpus.begin(), placement.cpus.end(), cpu), 0) << cpu;
}

TEST(Placement, IrqSiblingWithoutSmtFallsBackToSpreadAndSaysWhy) {
  LOAD_OR_SKIP(machine, kNumaMachine, "ens5");
  Placement placement =
      place_workers(machine.topology, PlacementMode::irq_sibling, numa_nic(machine));
  EXPECT_EQ(placement.used, PlacementMode::spread);
  EXPECT_EQ(placement.asked, PlacementMode::irq_sibling);
  EXPECT_NE(placement.why.find("hyperthread sibling"), std::string::npos) << placement.why;
}

TEST(Placement, IrqSiblingTakesTheOtherThreadOfTheInterruptCore) {
  LOAD_OR_SKIP(machine, kSmtMachine, "eth0");
  // Core c has PUs c and c + 4; RX queues 0 and 1 interrupt CPUs 0 and 1.
  NicPlacementFacts nic{"eth0", machine.nic_numa_node, {{0}, {1}}};
  Placement placement = place_workers(machine.topology, PlacementMode::irq_sibling, nic);
  EXPECT_EQ(placement.used, PlacementMode::irq_sibling);
  EXPECT_EQ(first(placement.cpus, 2), (std::vector<int>{4, 5}));
  EXPECT_EQ(placement.cpus.size(), 8u);
  Placement irq = place_workers(machine.topology, PlacementMode::irq, nic);
  EXPECT_EQ(first(irq.cpus, 2), (std::vector<int>{0, 1}));
}

TEST(Placement, AvoidIrqOnSmtLeavesOutBothThreadsOfAnInterruptCore) {
  LOAD_OR_SKIP(machine, kSmtMachine, "eth0");
  NicPlacementFacts nic{"eth0", machine.nic_numa_node, {{0}, {1}}};
  Placement placement = place_workers(machine.topology, PlacementMode::avoid_irq, nic);
  EXPECT_EQ(format_cpu_list(placement.cpus), "2-3,6-7");
  // With every core taking an interrupt nothing is left: spread, saying why.
  nic.rx_queue_cpus = {{0}, {1}, {2}, {3}};
  Placement none = place_workers(machine.topology, PlacementMode::avoid_irq, nic);
  EXPECT_EQ(none.used, PlacementMode::spread);
  EXPECT_NE(none.why.find("every core takes an RX interrupt of eth0"), std::string::npos)
      << none.why;
}

TEST(Placement, NicModesWithoutNicFactsFallBackToSpreadWithTheReason) {
  LOAD_OR_SKIP(machine, kSmtMachine, "eth0");
  for (PlacementMode mode : {PlacementMode::numa, PlacementMode::irq, PlacementMode::avoid_irq}) {
    Placement placement =
        place_workers(machine.topology, mode, Expected<NicPlacementFacts>(fail("lo: no device")));
    EXPECT_EQ(placement.used, PlacementMode::spread);
    EXPECT_EQ(placement.cpus, placement_order(machine.topology));
    EXPECT_NE(placement.why.find("lo: no device"), std::string::npos) << placement.why;
  }
  // The SMT machine's NIC has no NUMA node below the package's; numa uses node 0.
  NicPlacementFacts nic{"eth0", machine.nic_numa_node, {{0}}};
  EXPECT_EQ(place_workers(machine.topology, PlacementMode::numa, nic).cpus.size(), 8u);
}

TEST(PlacementMode, ParsesEveryNameAndRefusesOthers) {
  for (const char* name : {"spread", "numa", "irq", "irq-sibling", "avoid-irq"}) {
    Expected<PlacementMode> mode = parse_placement_mode(name);
    ASSERT_TRUE(mode) << name;
    EXPECT_STREQ(placement_mode_name(*mode), name);
  }
  Expected<PlacementMode> bad = parse_placement_mode("irq_sibling");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message,
            "--placement: 'irq_sibling' is not one of spread, numa, irq, irq-sibling, avoid-irq");
}

}  // namespace
}  // namespace xttcp
