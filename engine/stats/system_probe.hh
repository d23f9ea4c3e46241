// System probes: absolute counters read at phase edges (CPU ticks, TCP retransmits, NIC packets,
// interrupts, this process's CPU time), and the deltas NTTTCP-for-Linux reports, each over the
// measured window only.
// Per platform: system_probe_linux.cc (/proc, /sys), system_probe_windows.cc (GetSystemTimes,
// NtQuerySystemInformation, GetTcpStatisticsEx, GetIfTable2); the deltas are system_deltas.cc.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "base/status.hh"
#include "engine/result.hh"
#include "engine/spec.hh"
#include "engine/stats/proc_parsers.hh"
#include "engine/stats/queue_probe.hh"

namespace xttcp {

struct SystemSnapshot {
  CpuTimes cpu;
  TcpRetransmits tcp;                    // absolute counters
  std::optional<NicPackets> nic;         // when spec.output.show_nic_packets is set
  std::optional<Interrupts> interrupts;  // Linux: when spec.output.show_dev_interrupts is set;
                                         // Windows: every interrupt, when the OS counts them
  // NTttcp's "packets": TCP segments out/in and failed connection attempts (both address
  // families), or on Linux for a UDP run UDP datagrams out/in and receive errors (IPv4 and
  // IPv6); nullopt where the OS gives no such counter (e.g. Wine's zeros).
  std::optional<TransportCounters> transport;
  std::optional<uint64_t> dpcs;                     // Windows only
  double process_user_s = 0, process_system_s = 0;  // getrusage(RUSAGE_SELF) / GetProcessTimes
  // CPU time of the kernel's softirq threads (Linux ksoftirqd/N), all of them: receive work the
  // kernel deferred from whichever task raised it. No process's own time holds it. nullopt when
  // there are none to read, or one no longer is what the scan found.
  std::optional<double> softirq_threads_s;
  std::optional<QueueSnapshot> queues;  // the watched NIC's queues (queue_probe.hh)
  std::chrono::steady_clock::time_point at;
  // Files that could not be read or parsed ("/proc/net/netstat: no 'TcpExt:' section"); their
  // counters stay 0. The caller decides whether to print them.
  std::vector<std::string> problems;
};

class SystemProbe {
 public:
  // The roots are Linux's (tests point them at fixtures); Windows ignores them.
  explicit SystemProbe(const TestSpec& spec, std::string proc_root = "/proc",
                       std::string sys_root = "/sys");
  SystemSnapshot take() const;  // cheap enough to call at phase edges; never throws

 private:
  std::string proc_root_, sys_root_;
  std::string nic_;                // "" = not probed
  std::string interrupt_pattern_;  // "" = not probed
  bool udp_ = false;               // transport: UDP datagrams rather than TCP segments (Linux)
  QueueProbe queues_;
  std::vector<std::string> softirq_thread_stat_paths_;  // <proc>/<pid>/stat of each ksoftirqd/N
};

// The stat files of the kernel's softirq threads under proc_root: kernel threads (PF_KTHREAD, so
// no program named "ksoftirqd/0" counts) named ksoftirqd/<cpu>. The kernel makes one when a CPU
// first comes online and parks it, never frees it, when the CPU goes offline; a CPU added after
// the scan is not counted. None on Windows, or where /proc does not show kernel threads (a
// container's own pid namespace, hidepid): then no figure is given.
std::vector<std::string> find_softirq_threads(const std::string& proc_root);
// The same, scanned once per process for each proc_root (a scan reads every task's stat file).
const std::vector<std::string>& softirq_threads_of(const std::string& proc_root);

// Fills result.cpu (split in percent, cycles/byte with host.cpu_mhz and host.cpu_cores as
// NTTTCP-for-Linux computes it, process_busy = process CPU seconds / seconds * 100), result.tcp,
// result.nic, result.interrupts, result.transport, result.dpcs and result.queue_window from two
// snapshots. A counter
// that went backwards gives 0; one missing at either edge stays nullopt ("NA" on the console).
void apply_system_deltas(const SystemSnapshot& begin, const SystemSnapshot& end, double seconds,
                         uint64_t total_bytes, const HostInfo& host, Result& result);

// Hostname, a `uname -a` style line, kernel release, CPU model, cores (cpuN lines of stat, at
// least 1) and MHz (first "cpu MHz" of cpuinfo). Unreadable parts stay empty or 0. Windows: the
// computer name, "Windows 10.0.<build>", the registry's ProcessorNameString and ~MHz (nominal,
// as NTttcp reads it) and the active processors.
HostInfo read_host_info(const std::string& proc_root = "/proc");

// For --show-nic-packets: the interface must exist (Linux: under <sys_root>/class/net; Windows:
// an interface alias such as "Ethernet", or its index, among GetIfTable2's).
Status check_interface_exists(const std::string& name, const std::string& sys_root = "/sys");

}  // namespace xttcp
