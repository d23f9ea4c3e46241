// /proc/interrupts, CPU masks, RXH fields and each driver's IRQ names -> queues, on fixtures
// shaped like real ena, gve, mana, mlx5 and virtio_net machines (tests/unit/topology/fixtures).
#include "topology/nic/nic_parse.hh"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace xttcp {
namespace {

std::vector<InterruptLine> fixture(const std::string& name) {
  std::ifstream in(std::string(NIC_FIXTURE_DIR) + "/" + name);
  EXPECT_TRUE(in) << name;
  std::stringstream text;
  text << in.rdbuf();
  Expected<std::vector<InterruptLine>> lines = parse_proc_interrupts(text.str());
  EXPECT_TRUE(lines) << (lines ? "" : lines.error().message);
  return lines ? *lines : std::vector<InterruptLine>{};
}

// "rx0:38 tx0:39 other:37" for compact comparisons.
std::string summary(const Expected<std::vector<NicIrq>>& irqs) {
  if (!irqs) return "error: " + irqs.error().message;
  std::string out;
  for (const NicIrq& irq : *irqs) {
    if (!out.empty()) out += ' ';
    out += queue_kind_name(irq.kind);
    if (irq.queue >= 0) out += std::to_string(irq.queue);
    out += ':' + std::to_string(irq.irq);
  }
  return out;
}

TEST(ProcInterrupts, ReadsNumberedLinesWithTheirPerCpuCountsAndName) {
  std::vector<InterruptLine> lines = fixture("interrupts_virtio_net.txt");
  ASSERT_EQ(lines.size(), 14u);  // NMI, LOC and ERR are not device interrupts
  EXPECT_EQ(lines[3].irq, 38);
  EXPECT_EQ(lines[3].name, "virtio2-input.0");
  EXPECT_EQ(lines[3].per_cpu, (std::vector<std::uint64_t>{3031, 0}));
}

TEST(ProcInterrupts, RefusesTextWithoutTheCpuHeaderOrWithMissingCounts) {
  EXPECT_FALSE(parse_proc_interrupts(""));
  EXPECT_FALSE(parse_proc_interrupts(" 38: 1 2 x virtio2-input.0\n"));
  Expected<std::vector<InterruptLine>> short_line = parse_proc_interrupts("  CPU0 CPU1\n 38: 1\n");
  ASSERT_FALSE(short_line);
  EXPECT_NE(short_line.error().message.find("fewer than 2 CPU counts"), std::string::npos);
  EXPECT_FALSE(parse_proc_interrupts("  CPU0\n 38: x PCI-MSI name\n"));
}

TEST(QueueIrqs, EnaHasOneTxRxIrqPerCombinedChannelAndAManagementIrq) {
  IrqNaming naming{"ena", "eth0", "0000:00:05.0", "0000:00:05.0", {24, 25, 26, 27, 28}};
  EXPECT_EQ(summary(map_queue_irqs(naming, fixture("interrupts_ena.txt"))),
            "combined0:25 combined1:26 combined2:27 combined3:28 other:24");
  naming.device_irqs.clear();  // by name alone: the management IRQ's name says no interface
  EXPECT_EQ(summary(map_queue_irqs(naming, fixture("interrupts_ena.txt"))),
            "combined0:25 combined1:26 combined2:27 combined3:28");
}

TEST(QueueIrqs, GveSplitsNotifyBlocksIntoTxThenRxHalves) {
  IrqNaming naming{"gve", "ens4", "0000:00:04.0", "0000:00:04.0", {}};
  EXPECT_EQ(summary(map_queue_irqs(naming, fixture("interrupts_gve.txt"))),
            "rx0:40 rx1:41 rx2:42 rx3:43 tx0:36 tx1:37 tx2:38 tx3:39");
}

TEST(QueueIrqs, ManaHasOneIrqPerQueueBesidesTheHardwareChannel) {
  IrqNaming naming{"mana", "eth1", "7870:00:00.0", "7870:00:00.0", {24, 25, 26, 27, 28}};
  EXPECT_EQ(summary(map_queue_irqs(naming, fixture("interrupts_mana.txt"))),
            "combined0:25 combined1:26 combined2:27 combined3:28 other:24");
}

TEST(QueueIrqs, Mlx5CompletionIrqsOfTheSecondPortAreNotTheFirstPorts) {
  IrqNaming naming{"mlx5_core", "ens1f1", "0000:3b:00.1", "0000:3b:00.1", {}};
  EXPECT_EQ(summary(map_queue_irqs(naming, fixture("interrupts_mlx5.txt"))),
            "combined0:46 combined1:47 combined2:48 combined3:49");
}

TEST(QueueIrqs, VirtioNetInputIsRxOutputIsTxOfItsOwnVirtioDevice) {
  IrqNaming naming{"virtio_net", "eth1", "virtio3", "0000:00:04.0", {}};
  EXPECT_EQ(summary(map_queue_irqs(naming, fixture("interrupts_virtio_net.txt"))),
            "rx0:44 rx1:46 tx0:45 tx1:47");
  naming.device_irqs = {43, 44, 45, 46, 47, 48};  // the PCI function's msi_irqs
  EXPECT_EQ(summary(map_queue_irqs(naming, fixture("interrupts_virtio_net.txt"))),
            "rx0:44 rx1:46 tx0:45 tx1:47 other:43 other:48");
}

TEST(QueueIrqs, IntelStyleNamesAreKnownForOtherDrivers) {
  std::vector<InterruptLine> lines = {{60, {1}, "enp1s0-TxRx-0"},
                                      {61, {1}, "enp1s0-rx-1"},
                                      {62, {1}, "enp1s0-tx-1"},
                                      {63, {1}, "enp2s0-TxRx-0"}};
  EXPECT_EQ(summary(map_queue_irqs({"ixgbe", "enp1s0", "", "", {}}, lines)),
            "rx1:61 tx1:62 combined0:60");
}

TEST(QueueIrqs, SaysWhyWhenTheNicHasNoQueueIrq) {
  Expected<std::vector<NicIrq>> netvsc =
      map_queue_irqs({"hv_netvsc", "eth0", "", "", {}}, fixture("interrupts_ena.txt"));
  ASSERT_FALSE(netvsc);
  EXPECT_NE(netvsc.error().message.find("VMBus"), std::string::npos);
  Expected<std::vector<NicIrq>> none = map_queue_irqs({"virtio_net", "eth9", "virtio9", "", {}},
                                                      fixture("interrupts_virtio_net.txt"));
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message, "no interrupt in /proc/interrupts is eth9's (driver virtio_net)");
}

TEST(CpuMask, ReadsHexWordsFromTheRight) {
  EXPECT_EQ(*parse_cpu_mask("0\n"), std::vector<int>{});
  EXPECT_EQ(*parse_cpu_mask("f"), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(*parse_cpu_mask("00000001,00000102\n"), (std::vector<int>{1, 8, 32}));
  EXPECT_FALSE(parse_cpu_mask("0x3"));
  EXPECT_FALSE(parse_cpu_mask(""));
}

TEST(HashFields, NamesTheRxhBits) {
  EXPECT_EQ(describe_hash_fields(0xf0), "src-ip dst-ip src-port dst-port");
  EXPECT_EQ(describe_hash_fields(0x30), "src-ip dst-ip");
  EXPECT_EQ(describe_hash_fields(0), "none");
  EXPECT_EQ(describe_hash_fields(1ULL << 31), "discard");
}

}  // namespace
}  // namespace xttcp
