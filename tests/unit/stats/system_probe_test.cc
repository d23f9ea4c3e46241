// SystemProbe on a fake /proc and /sys, and the delta arithmetic of apply_system_deltas.
#include "engine/stats/system_probe.hh"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>

namespace xttcp {
namespace {

namespace fs = std::filesystem;

void write_file(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// A throw-away directory holding proc/ and sys/ trees.
class FakeRoots : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "xttcp-probe-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
  }
  void TearDown() override { fs::remove_all(root_); }

  std::string proc() const { return (root_ / "proc").string(); }
  std::string sys() const { return (root_ / "sys").string(); }

  // Writes one consistent set of counters; later calls overwrite them.
  void write_counters(uint64_t user, uint64_t idle, uint64_t retrans, uint64_t fast, uint64_t tx,
                      uint64_t rx, uint64_t irq_cpu0, uint64_t irq_cpu1) {
    write_file(root_ / "proc/stat",
               fmt::format("cpu  {} 0 50 {} 5 0 7 0 0 0\ncpu0 1 0 1 1 0 0 0 0 0 0\n"
                           "cpu1 1 0 1 1 0 0 0 0 0 0\ncpu2 1 0 1 1 0 0 0 0 0 0\nintr 1\n",
                           user, idle));
    write_file(root_ / "proc/net/snmp",
               fmt::format("Ip: Forwarding DefaultTTL\nIp: 1 64\n"
                           "Tcp: RtoAlgorithm MaxConn AttemptFails InSegs OutSegs RetransSegs "
                           "InErrs\nTcp: 1 -1 9 2000 1000 {} 0\n"
                           "Udp: InDatagrams NoPorts InErrors OutDatagrams\nUdp: 3 7 5 4\n",
                           retrans));
    write_file(root_ / "proc/net/snmp6",
               "Ip6InReceives                   \t50\nUdp6InDatagrams                 \t10\n"
               "Udp6InErrors                    \t1\nUdp6OutDatagrams                \t20\n");
    write_file(root_ / "proc/net/netstat",
               fmt::format("TcpExt: TCPLostRetransmit TCPSynRetrans TCPFastRetrans "
                           "TCPForwardRetrans TCPSlowStartRetrans TCPRetransFail\n"
                           "TcpExt: 1 2 {} 4 5 6\nIpExt: InNoRoutes\nIpExt: 0\n",
                           fast));
    write_file(root_ / "proc/interrupts",
               fmt::format("           CPU0       CPU1\n"
                           " 41: {:>10} {:>10} PCI-MSIX-0000:00:04.0   1-edge      eth9-rx-0\n"
                           " 42: {:>10} {:>10} PCI-MSIX-0000:00:04.0   2-edge      virtio3\n",
                           irq_cpu0, irq_cpu1, 1000, 1000));
    write_file(root_ / "sys/class/net/eth9/statistics/tx_packets", fmt::format("{}\n", tx));
    write_file(root_ / "sys/class/net/eth9/statistics/rx_packets", fmt::format("{}\n", rx));
  }

  fs::path root_;
};

TEST_F(FakeRoots, SnapshotReadsEveryCounter) {
  write_counters(100, 1000, 27, 3, 500, 600, 10, 20);
  TestSpec spec;
  spec.output.show_nic_packets = "eth9";
  spec.output.show_dev_interrupts = "eth9";
  SystemSnapshot snapshot = SystemProbe(spec, proc(), sys()).take();

  EXPECT_TRUE(snapshot.problems.empty()) << snapshot.problems.front();
  EXPECT_EQ(snapshot.cpu.user, 100u);
  EXPECT_EQ(snapshot.cpu.idle, 1000u);
  EXPECT_EQ(snapshot.cpu.cores, 3u);
  EXPECT_EQ(snapshot.tcp.retrans_segs, 27u);
  EXPECT_EQ(snapshot.tcp.lost_retransmit, 1u);
  EXPECT_EQ(snapshot.tcp.syn_retrans, 2u);
  EXPECT_EQ(snapshot.tcp.fast_retrans, 3u);
  EXPECT_EQ(snapshot.tcp.forward_retrans, 4u);
  EXPECT_EQ(snapshot.tcp.slow_start_retrans, 5u);
  EXPECT_EQ(snapshot.tcp.retrans_fail, 6u);
  ASSERT_TRUE(snapshot.transport);  // NTttcp's "packets": TCP segments out/in, failed connects
  EXPECT_EQ(snapshot.transport->packets_sent, 1000u);
  EXPECT_EQ(snapshot.transport->packets_received, 2000u);
  EXPECT_EQ(snapshot.transport->errors, 9u);
  ASSERT_TRUE(snapshot.nic);
  EXPECT_EQ(snapshot.nic->interface_name, "eth9");
  EXPECT_EQ(snapshot.nic->tx_packets, 500u);
  EXPECT_EQ(snapshot.nic->rx_packets, 600u);
  ASSERT_TRUE(snapshot.interrupts);
  EXPECT_EQ(snapshot.interrupts->pattern, "eth9");
  EXPECT_EQ(snapshot.interrupts->total, 30u) << "per-CPU columns count, '41:' does not";
}

// A UDP run's "packets" are datagrams, IPv4 (snmp) and IPv6 (snmp6) together.
TEST_F(FakeRoots, UdpRunCountsDatagramsOfBothFamilies) {
  write_counters(100, 1000, 27, 3, 500, 600, 10, 20);
  TestSpec spec;
  spec.workload.protocol = Protocol::udp;
  SystemSnapshot snapshot = SystemProbe(spec, proc(), sys()).take();
  EXPECT_TRUE(snapshot.problems.empty());
  ASSERT_TRUE(snapshot.transport);
  EXPECT_EQ(snapshot.transport->packets_sent, 4u + 20u);
  EXPECT_EQ(snapshot.transport->packets_received, 3u + 10u);
  EXPECT_EQ(snapshot.transport->errors, 5u + 1u);
}

TEST_F(FakeRoots, NicAndInterruptsOnlyWhenAsked) {
  write_counters(100, 1000, 27, 3, 500, 600, 10, 20);
  SystemSnapshot snapshot = SystemProbe(TestSpec{}, proc(), sys()).take();
  EXPECT_TRUE(snapshot.problems.empty());
  EXPECT_FALSE(snapshot.nic);
  EXPECT_FALSE(snapshot.interrupts);
}

TEST_F(FakeRoots, MissingFilesGiveZerosAndProblemsNotExceptions) {
  TestSpec spec;
  spec.output.show_nic_packets = "eth9";
  spec.output.show_dev_interrupts = "eth9";
  SystemSnapshot snapshot = SystemProbe(spec, proc(), sys()).take();
  EXPECT_EQ(snapshot.cpu.total(), 0u);
  EXPECT_EQ(snapshot.tcp.retrans_segs, 0u);
  EXPECT_FALSE(snapshot.transport) << "unread counters are absent, not 0";
  ASSERT_TRUE(snapshot.nic);
  EXPECT_EQ(snapshot.nic->tx_packets, 0u);
  // stat, snmp, netstat, tx_packets, rx_packets, interrupts
  EXPECT_EQ(snapshot.problems.size(), 6u);
  EXPECT_NE(snapshot.problems.front().find("cannot open " + proc() + "/stat"), std::string::npos)
      << snapshot.problems.front();
}

TEST_F(FakeRoots, DeltasBetweenTwoSnapshots) {
  TestSpec spec;
  spec.output.show_nic_packets = "eth9";
  spec.output.show_dev_interrupts = "eth9";
  SystemProbe probe(spec, proc(), sys());
  write_counters(100, 1000, 27, 3, 500, 600, 10, 20);
  SystemSnapshot begin = probe.take();
  write_counters(400, 1600, 30, 5, 1500, 2600, 110, 220);
  SystemSnapshot end = probe.take();

  Result result;
  HostInfo host;
  host.cpu_mhz = 1000;
  host.cpu_cores = 3;
  apply_system_deltas(begin, end, 2.0, 1'000'000'000, host, result);
  // Ticks: user +300, idle +600, others unchanged: total +900.
  EXPECT_NEAR(result.cpu.user, 300.0 * 100 / 900, 1e-9);
  EXPECT_NEAR(result.cpu.idle, 600.0 * 100 / 900, 1e-9);
  EXPECT_EQ(result.cpu.system, 0.0);
  EXPECT_NEAR(result.cpu.cycles_per_byte, 1000e6 * 2.0 * 3 * (1 - 600.0 / 900) / 1e9, 1e-12);
  EXPECT_EQ(result.tcp.retrans_segs, 3u);
  EXPECT_EQ(result.tcp.fast_retrans, 2u);
  EXPECT_EQ(result.tcp.lost_retransmit, 0u);
  ASSERT_TRUE(result.nic);
  EXPECT_EQ(result.nic->interface_name, "eth9");
  EXPECT_EQ(result.nic->tx_packets, 1000u);
  EXPECT_EQ(result.nic->rx_packets, 2000u);
  ASSERT_TRUE(result.interrupts);
  EXPECT_EQ(result.interrupts->total, 300u);
}

// A task's /proc/<pid>/stat with `ticks` of utime and none of stime: a kernel thread (its flags
// hold PF_KTHREAD), or a program's when `kernel` is false.
std::string task_stat(int pid, const std::string& name, uint64_t ticks, bool kernel = true) {
  return fmt::format("{} ({}) S 2 0 0 0 -1 {} 0 0 0 0 {} 0 0 0 20 0 1 0 9 0 0\n", pid, name,
                     kernel ? 69238848 : 4194560, ticks);
}

TEST_F(FakeRoots, SoftirqThreadsOfEveryCpuOverTheWindow) {
  write_counters(100, 1000, 27, 3, 500, 600, 10, 20);
  write_file(root_ / "proc/14/stat", task_stat(14, "ksoftirqd/0", 100));
  write_file(root_ / "proc/24/stat", task_stat(24, "ksoftirqd/1", 200));
  write_file(root_ / "proc/30/stat", task_stat(30, "kworker/0:1", 5000));      // not one of them
  write_file(root_ / "proc/self/stat", task_stat(31, "ksoftirqd/9", 7));       // not a pid
  write_file(root_ / "proc/40/stat", task_stat(40, "ksoftirqd/2", 9, false));  // a program posing
  write_file(root_ / "proc/41/stat", task_stat(41, "ksoftirqd/x", 9));  // not ksoftirqd/<cpu>
  const std::vector<std::string> found = find_softirq_threads(proc());
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0], proc() + "/14/stat");

  TestSpec spec;
  SystemProbe probe(spec, proc(), sys());
  const double tick = 1.0 / static_cast<double>(::sysconf(_SC_CLK_TCK));
  SystemSnapshot begin = probe.take();
  ASSERT_TRUE(begin.softirq_threads_s);
  EXPECT_NEAR(*begin.softirq_threads_s, 300 * tick, 1e-9);
  write_file(root_ / "proc/24/stat", task_stat(24, "ksoftirqd/1", 450));
  SystemSnapshot end = probe.take();
  Result result;
  apply_system_deltas(begin, end, 2.0, 1'000'000'000, HostInfo{}, result);
  ASSERT_TRUE(result.cpu.softirq_threads_s);
  EXPECT_NEAR(*result.cpu.softirq_threads_s, 250 * tick, 1e-9);

  // A pid that is no longer a softirq thread: no figure, rather than another task's time.
  write_file(root_ / "proc/24/stat", task_stat(24, "ksoftirqd/1", 500, false));
  EXPECT_FALSE(probe.take().softirq_threads_s);
  // One that cannot be read: no figure, rather than one that shrank.
  write_file(root_ / "proc/24/stat", task_stat(24, "ksoftirqd/1", 500));
  EXPECT_TRUE(probe.take().softirq_threads_s);
  fs::remove(root_ / "proc/14/stat");
  EXPECT_FALSE(probe.take().softirq_threads_s);
  apply_system_deltas(begin, probe.take(), 2.0, 1'000'000'000, HostInfo{}, result);
  EXPECT_FALSE(result.cpu.softirq_threads_s);
}

TEST_F(FakeRoots, NoSoftirqThreadsNoFigure) {
  write_counters(100, 1000, 27, 3, 500, 600, 10, 20);
  TestSpec spec;
  SystemProbe probe(spec, proc(), sys());
  EXPECT_FALSE(probe.take().softirq_threads_s);
}

TEST_F(FakeRoots, HostInfoFromProcRoot) {
  write_counters(100, 1000, 27, 3, 500, 600, 10, 20);
  write_file(fs::path(proc()) / "cpuinfo",
             "processor\t: 0\nmodel name\t: Test CPU @ 2.00GHz\ncpu MHz\t\t: 1999.5\n");
  HostInfo host = read_host_info(proc());
  EXPECT_EQ(host.cpu_model, "Test CPU @ 2.00GHz");
  EXPECT_DOUBLE_EQ(host.cpu_mhz, 1999.5);
  EXPECT_EQ(host.cpu_cores, 3u);
  EXPECT_FALSE(host.hostname.empty());
  EXPECT_FALSE(host.kernel.empty());
  // "Linux <host> <release> <version> <machine> GNU/Linux", like `uname -a`.
  EXPECT_EQ(host.os.rfind("Linux " + host.hostname + " " + host.kernel + " ", 0), 0u) << host.os;
  EXPECT_EQ(host.os.substr(host.os.size() - 10), " GNU/Linux");
}

TEST_F(FakeRoots, HostInfoWithoutProcFilesStillHasOneCore) {
  HostInfo host = read_host_info(proc());
  EXPECT_EQ(host.cpu_cores, 1u);
  EXPECT_EQ(host.cpu_mhz, 0.0);
  EXPECT_EQ(host.cpu_model, "");
}

TEST_F(FakeRoots, InterfaceExistence) {
  write_counters(100, 1000, 27, 3, 500, 600, 10, 20);
  EXPECT_TRUE(check_interface_exists("eth9", sys()));
  for (const char* name : {"eth0", "", "..", "eth9/statistics"}) {
    Status status = check_interface_exists(name, sys());
    ASSERT_FALSE(status) << name;
    EXPECT_EQ(status.error().message,
              fmt::format("--show-nic-packets: no network interface named '{}'", name));
  }
}

TEST(CheckInterfaceExists, LoopbackOnThisHost) { EXPECT_TRUE(check_interface_exists("lo")); }

SystemSnapshot snapshot_with(const CpuTimes& cpu, double user_s, double system_s) {
  SystemSnapshot snapshot;
  snapshot.cpu = cpu;
  snapshot.process_user_s = user_s;
  snapshot.process_system_s = system_s;
  return snapshot;
}

// The reference receiver sample: 2 cores at 2096.022 MHz, 10.000669 s, 19870252526 bytes,
// user 8.88 %, system 51.77 %, idle 20.77 %, iowait 0.05 %, softirq 18.54 % -> 1.67 cycles/byte.
TEST(ApplySystemDeltas, ReproducesReferenceSampleCyclesPerByte) {
  CpuTimes begin{1000, 0, 2000, 3000, 10, 0, 500, 0, 2};
  CpuTimes end = begin;
  end.user += 888;
  end.system += 5177;
  end.idle += 2077;
  end.iowait += 5;
  end.softirq += 1853;  // total +10000 ticks

  HostInfo host;
  host.cpu_mhz = 2096.022;
  host.cpu_cores = 2;
  Result result;
  apply_system_deltas(snapshot_with(begin, 1.0, 0.5), snapshot_with(end, 4.0, 2.0), 10.000669,
                      19870252526ull, host, result);

  EXPECT_NEAR(result.cpu.user, 8.88, 1e-9);
  EXPECT_NEAR(result.cpu.system, 51.77, 1e-9);
  EXPECT_NEAR(result.cpu.idle, 20.77, 1e-9);
  EXPECT_NEAR(result.cpu.iowait, 0.05, 1e-9);
  EXPECT_NEAR(result.cpu.softirq, 18.53, 1e-9);
  const double expected = 2096.022 * 1e6 * 10.000669 * 2 * (1 - 0.2077) / 19870252526.0;
  EXPECT_NEAR(result.cpu.cycles_per_byte, expected, 1e-12);
  EXPECT_EQ(fmt::format("{:.2f}", result.cpu.cycles_per_byte), "1.67");

  // Process CPU: (3.0 + 1.5) s over 10.000669 s.
  EXPECT_DOUBLE_EQ(result.cpu.process_user_s, 3.0);
  EXPECT_DOUBLE_EQ(result.cpu.process_system_s, 1.5);
  EXPECT_NEAR(result.cpu.process_busy, 4.5 / 10.000669 * 100, 1e-9);
}

TEST(ApplySystemDeltas, CountersGoingBackwardsGiveZero) {
  SystemSnapshot begin;
  begin.cpu = CpuTimes{500, 0, 500, 5000, 0, 0, 0, 0, 2};
  begin.tcp.retrans_segs = 100;
  begin.tcp.fast_retrans = 7;
  begin.nic = NicPackets{"eth0", 1000, 1000};
  begin.interrupts = Interrupts{"eth0", 5000};
  begin.process_user_s = 2;
  SystemSnapshot end;
  end.cpu = CpuTimes{400, 0, 600, 5100, 0, 0, 0, 0, 2};  // user went backwards
  end.tcp.retrans_segs = 90;
  end.tcp.fast_retrans = 8;
  end.nic = NicPackets{"eth0", 900, 1100};
  end.interrupts = Interrupts{"eth0", 10};  // a wrapped 32-bit counter
  end.process_user_s = 1;

  Result result;
  HostInfo host{"h", "os", "k", "m", 2, 1000};
  apply_system_deltas(begin, end, 1.0, 1000, host, result);
  EXPECT_EQ(result.cpu.user, 0.0);
  EXPECT_EQ(result.tcp.retrans_segs, 0u);
  EXPECT_EQ(result.tcp.fast_retrans, 1u);
  ASSERT_TRUE(result.nic);
  EXPECT_EQ(result.nic->tx_packets, 0u);
  EXPECT_EQ(result.nic->rx_packets, 100u);
  ASSERT_TRUE(result.interrupts);
  EXPECT_EQ(result.interrupts->total, 0u);
  EXPECT_EQ(result.cpu.process_user_s, 0.0);
  EXPECT_TRUE(std::isfinite(result.cpu.cycles_per_byte));
  EXPECT_GE(result.cpu.cycles_per_byte, 0.0);
}

TEST(ApplySystemDeltas, NoBytesNoTicksNoTimeGiveZeros) {
  SystemSnapshot same;
  same.cpu = CpuTimes{1, 1, 1, 1, 1, 1, 1, 1, 4};
  HostInfo host{"h", "os", "k", "m", 4, 3000};
  Result result;
  apply_system_deltas(same, same, 0.0, 0, host, result);
  EXPECT_EQ(result.cpu.user, 0.0);
  EXPECT_EQ(result.cpu.idle, 0.0);
  EXPECT_EQ(result.cpu.cycles_per_byte, 0.0);
  EXPECT_EQ(result.cpu.process_busy, 0.0);
  EXPECT_FALSE(result.nic);
  EXPECT_FALSE(result.interrupts);
}

TEST(SystemProbe, RealProcIsReadable) {
  TestSpec spec;
  spec.output.show_nic_packets = "lo";
  SystemSnapshot snapshot = SystemProbe(spec).take();
  EXPECT_TRUE(snapshot.problems.empty()) << snapshot.problems.front();
  EXPECT_GT(snapshot.cpu.total(), 0u);
  EXPECT_GE(snapshot.cpu.cores, 1u);
  ASSERT_TRUE(snapshot.nic);
  // A Linux kernel has a ksoftirqd per CPU; /proc hides them in a container's own pid namespace.
  EXPECT_EQ(snapshot.softirq_threads_s.has_value(), !find_softirq_threads("/proc").empty());
}

}  // namespace
}  // namespace xttcp
