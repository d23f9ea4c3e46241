// Parsers of /proc text. The fixtures in tests/golden/stats were copied from a 2-CPU KVM guest
// (Debian 12, kernel 6.18) with `cat /proc/stat` etc.; they are inputs, never rewritten.
#include "engine/stats/proc_parsers.hh"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace xttcp {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(GOLDEN_DIR) + "/stats/" + name, std::ios::binary);
  EXPECT_TRUE(in) << "missing fixture " << name;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(ParseProcStat, ReadsAggregateLineAndCountsCpuLines) {
  Expected<CpuTimes> cpu = parse_proc_stat(fixture("proc_stat"));
  ASSERT_TRUE(cpu) << cpu.error().message;
  // cpu  2241 0 889 69891 262 0 33 2 0 0
  EXPECT_EQ(cpu->user, 2241u);
  EXPECT_EQ(cpu->nice, 0u);
  EXPECT_EQ(cpu->system, 889u);
  EXPECT_EQ(cpu->idle, 69891u);
  EXPECT_EQ(cpu->iowait, 262u);
  EXPECT_EQ(cpu->irq, 0u);
  EXPECT_EQ(cpu->softirq, 33u);
  EXPECT_EQ(cpu->steal, 2u);
  EXPECT_EQ(cpu->cores, 2u);
  EXPECT_EQ(cpu->total(), 2241u + 889u + 69891u + 262u + 33u + 2u);
}

TEST(ParseProcStat, AcceptsOldKernelsWithFewerFields) {
  Expected<CpuTimes> cpu = parse_proc_stat("cpu  10 1 5 100\ncpu0 10 1 5 100\nintr 5\n");
  ASSERT_TRUE(cpu) << cpu.error().message;
  EXPECT_EQ(cpu->idle, 100u);
  EXPECT_EQ(cpu->iowait, 0u);
  EXPECT_EQ(cpu->cores, 1u);
}

TEST(ParseProcStat, RejectsTextWithoutAggregateLine) {
  Expected<CpuTimes> cpu = parse_proc_stat("cpu0 1 2 3 4\nintr 5\n");
  ASSERT_FALSE(cpu);
  EXPECT_EQ(cpu.error().message, "/proc/stat: no aggregate 'cpu' line");
  EXPECT_FALSE(parse_proc_stat(""));
  EXPECT_FALSE(parse_proc_stat("cpu  1 2\n"));
  EXPECT_FALSE(parse_proc_stat("cpu  1 2 x 4\n"));
}

TEST(ParseProcStatCpus, ReadsEveryCpuLineById) {
  auto cpus = parse_proc_stat_cpus(fixture("proc_stat"));
  ASSERT_TRUE(cpus) << cpus.error().message;
  ASSERT_EQ(cpus->size(), 2u);
  // cpu1 1109 0 409 35078 42 0 19 1 0 0
  const CpuLineTicks& cpu1 = (*cpus)[1];
  EXPECT_EQ(cpu1.cpu, 1u);
  EXPECT_EQ(cpu1.ticks.user, 1109u);
  EXPECT_EQ(cpu1.ticks.system, 409u);
  EXPECT_EQ(cpu1.ticks.idle, 35078u);
  EXPECT_EQ(cpu1.ticks.iowait, 42u);
  EXPECT_EQ(cpu1.ticks.softirq, 19u);
  EXPECT_EQ(cpu1.ticks.steal, 1u);
  EXPECT_EQ((*cpus)[0].cpu, 0u);
  EXPECT_EQ((*cpus)[0].ticks.user, 1131u);
}

// An offline CPU has no line: ids are the kernel's, not positions.
TEST(ParseProcStatCpus, KeepsTheKernelsIdsWhenACpuIsOffline) {
  auto cpus = parse_proc_stat_cpus("cpu  3 0 3 30\ncpu0 1 0 1 10\ncpu2 1 0 1 10\ncpu17 1 0 1 10\n");
  ASSERT_TRUE(cpus) << cpus.error().message;
  ASSERT_EQ(cpus->size(), 3u);
  EXPECT_EQ((*cpus)[1].cpu, 2u);
  EXPECT_EQ((*cpus)[2].cpu, 17u);
}

// Linux 2.4 printed user nice system idle only, 2.6.0 added iowait irq softirq, 2.6.11 steal.
TEST(ParseProcStatCpus, OldKernelsFieldsThatAreMissingCountZero) {
  auto cpus = parse_proc_stat_cpus("cpu  10 1 5 100\ncpu0 10 1 5 100\ncpu1 4 0 2 50 7 1 3\n");
  ASSERT_TRUE(cpus) << cpus.error().message;
  ASSERT_EQ(cpus->size(), 2u);
  EXPECT_EQ((*cpus)[0].ticks.idle, 100u);
  EXPECT_EQ((*cpus)[0].ticks.iowait, 0u);
  EXPECT_EQ((*cpus)[0].ticks.steal, 0u);
  EXPECT_EQ((*cpus)[1].ticks.iowait, 7u);
  EXPECT_EQ((*cpus)[1].ticks.softirq, 3u);
  EXPECT_EQ((*cpus)[1].ticks.steal, 0u);
}

// Lines that are not "cpu<digits> ..." are skipped; fields past steal are never looked at, so a
// line of a million fields (or garbage after steal) costs eight.
TEST(ParseProcStatCpus, SkipsOtherLinesAndReadsNoFurtherThanSteal) {
  std::string text =
      "cpu  1 1 1 1\ncpuX 1 2 3 4\ncpu 7\ncpufreq 9\nintr 1 2\n\n  \ncpu0 1 2 3 4 5 6 7 8";
  for (int i = 0; i < 1000000; ++i) text += " 9";
  text += " garbage\r\ncpu1 1 2 3 4 5 6 7 8 9 10 what\n";
  auto cpus = parse_proc_stat_cpus(text);
  ASSERT_TRUE(cpus) << cpus.error().message;
  ASSERT_EQ(cpus->size(), 2u);
  EXPECT_EQ((*cpus)[0].ticks.steal, 8u);
  EXPECT_EQ((*cpus)[1].ticks.total(), 36u);
  auto none = parse_proc_stat_cpus("intr 5\n");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

TEST(ParseProcStatCpus, RefusesWhatItCannotRead) {
  auto word = parse_proc_stat_cpus("cpu0 1 2 x 4\n");
  ASSERT_FALSE(word);
  EXPECT_EQ(word.error().message, "/proc/stat: field 3 of the 'cpu0' line is not a number: 'x'");
  auto overlong = parse_proc_stat_cpus("cpu3 1 " + std::string(5000, '7') + " 3 4\n");
  ASSERT_FALSE(overlong);  // past 2^64, quoted to 40 characters
  EXPECT_EQ(overlong.error().message, "/proc/stat: field 2 of the 'cpu3' line is not a number: '" +
                                          std::string(40, '7') + "'");
  auto short_line = parse_proc_stat_cpus("cpu1 1 2 3\n");
  ASSERT_FALSE(short_line);
  EXPECT_EQ(short_line.error().message,
            "/proc/stat: the 'cpu1' line has fewer than 4 fields (user nice system idle)");
  auto twice = parse_proc_stat_cpus("cpu1 1 2 3 4\ncpu1 1 2 3 4\n");
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().message, "/proc/stat: 'cpu1' is listed twice");
  auto far = parse_proc_stat_cpus("cpu8192 1 2 3 4\n");
  ASSERT_FALSE(far);
  EXPECT_EQ(far.error().message, "/proc/stat: CPU id out of range (at most 8191): 'cpu8192'");
  EXPECT_FALSE(parse_proc_stat_cpus("cpu99999999999999999999999 1 2 3 4\n"));
  EXPECT_TRUE(parse_proc_stat_cpus("cpu8191 1 2 3 4\n"));
}

TEST(ParseSnmpSection, ReadsTcpSectionOfSnmp) {
  auto tcp = parse_snmp_section(fixture("snmp"), "Tcp");
  ASSERT_TRUE(tcp) << tcp.error().message;
  // Tcp: 1 200 120000 -1 14 2 0 0 0 821 688 0 0 2 0
  EXPECT_EQ(tcp->at("RtoMin"), 200u);
  EXPECT_EQ(tcp->at("ActiveOpens"), 14u);
  EXPECT_EQ(tcp->at("InSegs"), 821u);
  EXPECT_EQ(tcp->at("OutSegs"), 688u);
  EXPECT_EQ(tcp->at("RetransSegs"), 0u);
  EXPECT_EQ(tcp->count("MaxConn"), 0u) << "-1 is not a counter";
  // "Tcp:" must not pick up "TcpExt:" or "Udp:" lines.
  EXPECT_EQ(tcp->count("InDatagrams"), 0u);
}

TEST(ParseSnmpSection, ReadsTcpExtSectionOfNetstatWithOrWithoutColon) {
  for (const char* section : {"TcpExt", "TcpExt:"}) {
    auto ext = parse_snmp_section(fixture("netstat"), section);
    ASSERT_TRUE(ext) << ext.error().message;
    EXPECT_EQ(ext->at("TCPPureAcks"), 17u);
    EXPECT_EQ(ext->at("TCPHPHits"), 5u);
    EXPECT_EQ(ext->at("TCPLostRetransmit"), 0u);
    EXPECT_EQ(ext->count("TCPFastRetrans"), 1u);
    EXPECT_EQ(ext->count("InNoRoutes"), 0u) << "IpExt belongs to another section";
  }
}

TEST(ParseSnmpSection, ReportsMissingOrMalformedSections) {
  auto missing = parse_snmp_section(fixture("snmp"), "TcpExt");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "no 'TcpExt:' section");

  auto short_values = parse_snmp_section("Tcp: A B C\nTcp: 1 2\n", "Tcp");
  ASSERT_FALSE(short_values);
  EXPECT_EQ(short_values.error().message, "section 'Tcp:' has 3 names but 2 values");

  auto header_only = parse_snmp_section("Tcp: A B C\n", "Tcp");
  EXPECT_FALSE(header_only);
}

TEST(SumInterrupts, AddsEveryPureNumberOfMatchingLines) {
  const std::string text = fixture("interrupts");
  // 41: 1454 0 (virtio3-rx), 42: 0 3034 (virtio3-tx), 43: 1 0 (virtio3-event), 40: 0 0.
  // "41:", "1-edge" and "PCI-MSIX-0000:00:04.0" are not pure numbers.
  EXPECT_EQ(sum_interrupts(text, "virtio3"), 4489u);
  EXPECT_EQ(sum_interrupts(text, "LOC"), 14234u + 14579u);
  EXPECT_EQ(sum_interrupts(text, "virtio2-input"), 679u);
  EXPECT_EQ(sum_interrupts(text, "no-such-device"), 0u);
  EXPECT_EQ(sum_interrupts(text, ""), 0u);
}

TEST(SumInterrupts, FollowsNtttcpTokenRules) {
  // Trailing CR/LF still counts; tab-joined and signed tokens do not; overflow is skipped.
  EXPECT_EQ(sum_interrupts(" 1: 5 7\r\n 2: 1 1 eth\n", "eth"), 2u);
  EXPECT_EQ(sum_interrupts(" 1: 5\t7 eth\n", "eth"), 0u);
  EXPECT_EQ(sum_interrupts(" 1: -5 +7 eth 3\n", "eth"), 3u);
  EXPECT_EQ(sum_interrupts(" 1: 99999999999999999999999 4 eth\n", "eth"), 4u);
  // A number inside the pattern's own line counts even when it is the IRQ's name.
  EXPECT_EQ(sum_interrupts("  5 eth 6", "eth"), 11u);
}

TEST(ParseTaskStat, NameAndUserPlusSystemTicks) {
  // Fields 14 and 15 (utime 28451, stime 17) of a kernel thread's /proc/<pid>/stat.
  auto task = parse_task_stat(
      "14 (ksoftirqd/0) S 2 0 0 0 -1 69238848 0 0 0 0 28451 17 0 0 20 0 1 0 9 0 0\n");
  ASSERT_TRUE(task) << task.error().message;
  EXPECT_EQ(task->name, "ksoftirqd/0");
  EXPECT_EQ(task->flags, 69238848u);
  EXPECT_NE(task->flags & task_flag_kthread, 0u);
  EXPECT_EQ(task->ticks, 28468u);
  // A name holds what a program chose: spaces and ')' too; the last ')' ends it.
  task = parse_task_stat("77 (a) b (c)) R 1 1 1 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 9");
  ASSERT_TRUE(task) << task.error().message;
  EXPECT_EQ(task->name, "a) b (c)");
  EXPECT_EQ(task->ticks, 11u);
}

TEST(ParseTaskStat, RefusesWhatIsNotOne) {
  EXPECT_FALSE(parse_task_stat(""));
  EXPECT_FALSE(parse_task_stat("14 ksoftirqd/0 S 2 0 0 0 -1 0 0 0 0 0 1 2"));
  EXPECT_FALSE(parse_task_stat("14 (ksoftirqd/0) S 2 0 0 0 -1 0 0 0 0 0 1"));  // no stime
  EXPECT_FALSE(parse_task_stat("14 (x) S 2 0 0 0 -1 0 0 0 0 0 -1 2 0"));       // utime < 0
}

TEST(ParseCpuInfo, ReadsFirstMhzAndModel) {
  const std::string text = fixture("cpuinfo");
  EXPECT_DOUBLE_EQ(parse_cpu_mhz(text), 2100.0);
  EXPECT_EQ(parse_cpu_model(text), "Intel(R) Xeon(R) Processor");
}

TEST(ParseCpuInfo, ZeroAndEmptyWhenAbsent) {
  // Some ARM kernels print neither.
  const char* arm = "processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\n";
  EXPECT_EQ(parse_cpu_mhz(arm), 0.0);
  EXPECT_EQ(parse_cpu_model(arm), "");
  EXPECT_EQ(parse_cpu_mhz("cpu MHz\t\t: unknown\n"), 0.0);
  EXPECT_DOUBLE_EQ(parse_cpu_mhz("cpu MHz\t\t: 2096.022\ncpu MHz\t\t: 3000.000\n"), 2096.022);
}

}  // namespace
}  // namespace xttcp
