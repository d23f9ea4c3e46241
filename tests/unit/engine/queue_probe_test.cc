// The NIC's queues over a window: /proc/softirqs' NET_RX/NET_TX, and the deltas and imbalance
// figures from two snapshots.
#include "engine/stats/queue_probe.hh"

#include <gtest/gtest.h>

namespace xttcp {
namespace {

TEST(ProcSoftirqs, NetRxAndNetTxPerCpu) {
  const char* text =
      "                    CPU0       CPU1\n"
      "          HI:          1          0\n"
      "      NET_TX:         10         20\n"
      "      NET_RX:      50000      70000\n"
      "       BLOCK:         44         55\n";
  auto counts = parse_proc_softirqs(text);
  ASSERT_TRUE(counts) << counts.error().message;
  EXPECT_EQ(counts->net_rx, (std::vector<uint64_t>{50000, 70000}));
  EXPECT_EQ(counts->net_tx, (std::vector<uint64_t>{10, 20}));
}

TEST(ProcSoftirqs, RefusesWhatIsNotIt) {
  EXPECT_FALSE(parse_proc_softirqs("NET_RX: 1 2\n"));
  EXPECT_FALSE(parse_proc_softirqs("   CPU0   CPU1\n NET_RX: 1 2\n"));  // no NET_TX
  auto short_line = parse_proc_softirqs("   CPU0   CPU1\n NET_RX: 1\n NET_TX: 1 2\n");
  ASSERT_FALSE(short_line);
  EXPECT_EQ(short_line.error().message, "/proc/softirqs: NET_RX: has 1 counts for 2 CPUs");
}

QueueSnapshot snapshot(uint64_t scale) {
  QueueSnapshot s;
  s.nic = "eth1";
  s.driver = "ena";
  NicIrq irq;
  irq.irq = 40;
  irq.kind = QueueKind::combined;
  irq.queue = 0;
  s.queue_irqs = {irq};
  s.queues[0] = {100 * scale, 1000 * scale, 10 * scale, 100 * scale};
  s.queues[1] = {300 * scale, 3000 * scale, 10 * scale, 100 * scale};
  s.irqs[40] = {5 * scale, 7 * scale};
  s.softirqs = NetSoftirqs{{2 * scale, 3 * scale}, {scale, scale}};
  // cpu0 idles; cpu1 spends its time in softirq. Fields: user nice system idle iowait irq
  // softirq steal.
  s.cpus =
      std::vector<CpuLineTicks>{{0, {10 * scale, 0, 5 * scale, 80 * scale, 5 * scale, 0, 0, 0}},
                                {1, {scale, scale, 2 * scale, 0, 0, scale, 95 * scale, 0}}};
  return s;
}

TEST(QueueWindow, DeltasAndImbalance) {
  const QueueWindow w = queue_window(snapshot(1), snapshot(3));
  EXPECT_EQ(w.nic, "eth1");
  EXPECT_EQ(w.driver, "ena");
  ASSERT_EQ(w.queues.size(), 2u);
  EXPECT_EQ(w.queues[0].rx_packets, 200u);
  EXPECT_EQ(w.queues[1].rx_bytes, 6000u);
  ASSERT_TRUE(w.rx_imbalance);
  EXPECT_DOUBLE_EQ(*w.rx_imbalance, 1.5);  // 600 / mean(200, 600)
  ASSERT_TRUE(w.tx_imbalance);
  EXPECT_DOUBLE_EQ(*w.tx_imbalance, 1.0);
  ASSERT_EQ(w.irqs.size(), 1u);
  EXPECT_EQ(w.irqs[0].kind, "combined");
  EXPECT_EQ(w.irqs[0].per_cpu, (std::vector<uint64_t>{10, 14}));
  EXPECT_EQ(w.net_rx_softirqs, (std::vector<uint64_t>{4, 6}));
  EXPECT_EQ(w.net_tx_softirqs, (std::vector<uint64_t>{2, 2}));
  ASSERT_EQ(w.cpus.size(), 2u);
  EXPECT_EQ(w.cpus_unavailable, "");
  EXPECT_EQ(w.cpus[0].cpu, 0u);
  EXPECT_EQ(w.cpus[0].ticks, 200u);
  EXPECT_DOUBLE_EQ(w.cpus[0].busy, 0.15);  // (user 20 + system 10) / 200; iowait is not busy
  EXPECT_DOUBLE_EQ(w.cpus[0].user, 0.1);
  EXPECT_DOUBLE_EQ(w.cpus[0].system, 0.05);
  EXPECT_EQ(w.cpus[1].ticks, 200u);
  EXPECT_DOUBLE_EQ(w.cpus[1].busy, 1.0);
  EXPECT_DOUBLE_EQ(w.cpus[1].user, 0.02);  // user and nice
  EXPECT_DOUBLE_EQ(w.cpus[1].softirq, 0.95);
  EXPECT_DOUBLE_EQ(w.cpus[1].irq, 0.01);
  EXPECT_EQ(w.busiest_cpu, std::optional<uint32_t>(1));
}

// A CPU taken offline in the window has no line at the end, one brought online none at the
// start: each is left out, the others are matched by id, not by position.
TEST(QueueWindow, CpusAreMatchedByIdAcrossHotPlug) {
  QueueSnapshot begin, end;
  begin.cpus = std::vector<CpuLineTicks>{{0, {0, 0, 0, 100, 0, 0, 0, 0}},
                                         {1, {0, 0, 0, 100, 0, 0, 0, 0}},
                                         {3, {10, 0, 0, 100, 0, 0, 0, 0}}};
  end.cpus = std::vector<CpuLineTicks>{{0, {0, 0, 50, 150, 0, 0, 0, 0}},
                                       {2, {900, 0, 0, 0, 0, 0, 0, 0}},
                                       {3, {60, 0, 0, 100, 0, 0, 0, 0}}};
  const QueueWindow w = queue_window(begin, end);
  ASSERT_EQ(w.cpus.size(), 2u);
  EXPECT_EQ(w.cpus[0].cpu, 0u);
  EXPECT_DOUBLE_EQ(w.cpus[0].busy, 0.5);
  EXPECT_DOUBLE_EQ(w.cpus[0].system, 0.5);
  EXPECT_EQ(w.cpus[1].cpu, 3u);
  EXPECT_EQ(w.cpus[1].ticks, 50u);
  EXPECT_DOUBLE_EQ(w.cpus[1].busy, 1.0);
  EXPECT_EQ(w.busiest_cpu, std::optional<uint32_t>(3));

  QueueSnapshot other;
  other.cpus = std::vector<CpuLineTicks>{{5, {1, 0, 0, 1, 0, 0, 0, 0}}};
  const QueueWindow none = queue_window(begin, other);
  EXPECT_TRUE(none.cpus.empty());
  EXPECT_EQ(none.cpus_unavailable, "not available: no CPU was online at both edges");
}

// Shares are of the ticks the CPU counted: a counter that went backwards (idle, iowait on some
// kernels) counts 0, so the shares still add up to 1; a window shorter than a tick gives 0s.
TEST(QueueWindow, CpuCountersThatWentBackwardsAndWindowsWithoutTicks) {
  QueueSnapshot begin, end;
  begin.cpus =
      std::vector<CpuLineTicks>{{0, {100, 0, 0, 500, 40, 0, 0, 0}}, {1, {7, 7, 7, 7, 7, 7, 7, 7}}};
  end.cpus =
      std::vector<CpuLineTicks>{{0, {130, 0, 0, 530, 30, 0, 0, 40}}, {1, {7, 7, 7, 7, 7, 7, 7, 7}}};
  const QueueWindow w = queue_window(begin, end);
  ASSERT_EQ(w.cpus.size(), 2u);
  EXPECT_EQ(w.cpus[0].ticks, 100u);  // user 30 + idle 30 + steal 40; iowait went back: 0
  EXPECT_DOUBLE_EQ(w.cpus[0].busy, 0.7);
  EXPECT_DOUBLE_EQ(w.cpus[0].steal, 0.4);
  EXPECT_DOUBLE_EQ(w.cpus[0].busy, w.cpus[0].user + w.cpus[0].system + w.cpus[0].irq +
                                       w.cpus[0].softirq + w.cpus[0].steal);
  EXPECT_EQ(w.cpus[1].ticks, 0u);
  EXPECT_EQ(w.cpus[1].busy, 0.0);
  EXPECT_EQ(w.busiest_cpu, std::optional<uint32_t>(0));

  QueueSnapshot idle = end;
  const QueueWindow still = queue_window(end, idle);
  EXPECT_FALSE(still.busiest_cpu);  // nothing was busy
}

TEST(QueueWindow, WhyThereAreNoCpus) {
  QueueSnapshot begin, end;
  end.cpus_why = "not available: cannot read /proc/stat";
  begin.cpus = std::vector<CpuLineTicks>{{0, {1, 0, 0, 1, 0, 0, 0, 0}}};
  const QueueWindow w = queue_window(begin, end);
  EXPECT_TRUE(w.cpus.empty());
  EXPECT_EQ(w.cpus_unavailable, end.cpus_why);
  EXPECT_FALSE(w.busiest_cpu);
}

TEST(QueueWindow, BytesWhenPacketsAreNotCountedAndReasonsCarried) {
  QueueSnapshot begin, end;
  begin.queues[0].rx_bytes = 0;
  begin.queues[1].rx_bytes = 0;
  end.queues[0].rx_bytes = 100;
  end.queues[1].rx_bytes = 300;
  end.irqs_why = "not available: xv0 is a virtual interface (no device, no IRQ)";
  end.softirqs_why = "not available: cannot read /proc/softirqs";
  const QueueWindow w = queue_window(begin, end);
  ASSERT_TRUE(w.rx_imbalance);
  EXPECT_DOUBLE_EQ(*w.rx_imbalance, 1.5);
  EXPECT_FALSE(w.tx_imbalance);
  EXPECT_TRUE(w.irqs.empty());
  EXPECT_EQ(w.irqs_unavailable, end.irqs_why);
  EXPECT_EQ(w.softirqs_unavailable, end.softirqs_why);
}

TEST(QueueWindow, ACounterThatWentBackwardsCountsZero) {
  QueueSnapshot begin, end;
  begin.queues[0].rx_packets = 50;
  end.queues[0].rx_packets = 10;  // the driver was reset in the window
  const QueueWindow w = queue_window(begin, end);
  ASSERT_EQ(w.queues.size(), 1u);
  EXPECT_EQ(w.queues[0].rx_packets, 0u);
  EXPECT_FALSE(w.rx_imbalance);
}

}  // namespace
}  // namespace xttcp
