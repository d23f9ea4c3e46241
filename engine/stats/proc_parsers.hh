// Pure parsers of Linux /proc text. They take the text, not a path, so tests feed them fixtures
// and the probe decides where the text comes from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.hh"

namespace xttcp {

// The fields of one "cpu" line of /proc/stat, in USER_HZ ticks. Kernels before 2.6 have only the
// first four, before 2.6.11 no steal: what a line lacks stays 0. guest and guest_nice are already
// inside user and nice, so they are not read.
struct CpuTicks {
  uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;

  // NTTTCP-for-Linux's denominator: guest time is already inside user/nice, so it is left out.
  uint64_t total() const { return user + nice + system + idle + iowait + irq + softirq + steal; }
};

// The aggregate "cpu" line of /proc/stat.
struct CpuTimes : CpuTicks {
  uint32_t cores = 0;  // number of cpuN lines
};

// Fails when there is no aggregate "cpu" line with at least user, nice, system and idle.
Expected<CpuTimes> parse_proc_stat(std::string_view text);

// One "cpuN" line of /proc/stat: the CPU's id and its ticks. The kernel prints online CPUs only.
struct CpuLineTicks {
  uint32_t cpu = 0;
  CpuTicks ticks;
};
// CPU ids are below this (the kernel's largest NR_CPUS).
inline constexpr std::size_t max_proc_stat_cpus = 8192;
// Every "cpuN" line, in the text's order, each read like the aggregate line (at least four fields;
// fields past steal are not looked at, however long the line). Fails on a field that is not a
// number, a CPU listed twice or an id of max_proc_stat_cpus or more (so there are at most that many
// lines); lines that do not start with "cpu" followed by digits are not CPU lines and are skipped.
Expected<std::vector<CpuLineTicks>> parse_proc_stat_cpus(std::string_view text);

// One section of /proc/net/snmp ("Tcp") or /proc/net/netstat ("TcpExt"): a header line of names
// followed by a line of values, both starting with "<section>:". `section` may end with ':'.
// Values that are not unsigned numbers (Tcp MaxConn is -1) are left out of the map.
Expected<std::map<std::string, uint64_t>> parse_snmp_section(std::string_view text,
                                                             std::string_view section);

// NTTTCP-for-Linux's --show-dev-interrupts rule: for every line of /proc/interrupts that contains
// `pattern` (case-sensitive), add up every space-separated token made only of digits. That counts
// per-CPU columns but skips "24:" and "0-edge". An empty pattern counts nothing.
uint64_t sum_interrupts(std::string_view proc_interrupts, std::string_view pattern);

// NET_RX and NET_TX of /proc/softirqs, one count per CPU column of its header.
struct NetSoftirqs {
  std::vector<uint64_t> net_rx, net_tx;
};
// Fails without the "CPU0 ..." header or the NET_RX/NET_TX lines, or with a short line.
Expected<NetSoftirqs> parse_proc_softirqs(std::string_view text);

// One task's /proc/<pid>/stat: its name (comm, which may hold spaces and parentheses), its flags
// and its utime + stime in clock ticks. Fails on text without "(name)" followed by at least 13
// fields.
struct TaskTicks {
  std::string name;
  uint64_t flags = 0;  // PF_*: PF_KTHREAD marks a kernel thread, which no program can pose as
  uint64_t ticks = 0;
};
inline constexpr uint64_t task_flag_kthread = 0x00200000;  // PF_KTHREAD (include/linux/sched.h)
Expected<TaskTicks> parse_task_stat(std::string_view text);

// The first "cpu MHz" of /proc/cpuinfo (current frequency of CPU0, as NTTTCP-for-Linux reads it);
// 0 when there is none (some ARM kernels).
double parse_cpu_mhz(std::string_view cpuinfo);

// The first "model name" of /proc/cpuinfo, trimmed; "" when there is none.
std::string parse_cpu_model(std::string_view cpuinfo);

}  // namespace xttcp
