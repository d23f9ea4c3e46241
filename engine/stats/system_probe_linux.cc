// Linux: system counters from /proc and /sys, host facts from uname and /proc/cpuinfo.
#include "engine/stats/system_probe.hh"

#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace xttcp {
namespace {

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

// /proc files report size 0, so read until EOF instead of trusting stat().
Expected<std::string> read_text_file(const std::string& path) {
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return fail(fmt::format("cannot open {}: {}", path, std::strerror(errno)));
  std::string text;
  char chunk[16384];
  for (;;) {
    ssize_t n = ::read(fd.get(), chunk, sizeof chunk);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
    }
    if (n == 0) break;
    text.append(chunk, static_cast<std::size_t>(n));
  }
  return text;
}

Expected<uint64_t> read_counter_file(const std::string& path) {
  Expected<std::string> text = read_text_file(path);
  if (!text) return text.error();
  const char* first = text->data();
  const char* last = first + text->size();
  uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(first, last, value);
  if (ec != std::errc() || (ptr != last && *ptr != '\n')) {
    return fail(fmt::format("{} does not hold a number", path));
  }
  return value;
}

double seconds_of(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

uint64_t value_or_zero(const std::map<std::string, uint64_t>& counters, const char* name) {
  auto it = counters.find(name);
  return it == counters.end() ? 0 : it->second;
}

// /proc/net/snmp6's "Udp6InDatagrams   12" lines: the IPv6 half of a UDP run's datagrams. No
// file (IPv6 off) adds nothing.
void add_udp6_counters(const std::string& proc_root, TransportCounters& transport) {
  Expected<std::string> text = read_text_file(proc_root + "/net/snmp6");
  if (!text) return;
  std::istringstream lines(*text);
  std::string name;
  uint64_t value = 0;
  while (lines >> name >> value) {
    if (name == "Udp6OutDatagrams") transport.packets_sent += value;
    if (name == "Udp6InDatagrams") transport.packets_received += value;
    if (name == "Udp6InErrors") transport.errors += value;
  }
}

// Retransmits, and NTttcp's "packets" (TransportCounters): TCP segments (Linux's Tcp MIB
// counts both address families) or, for a UDP run, datagrams of both.
void read_tcp_counters(const std::string& proc_root, bool udp, SystemSnapshot& snapshot) {
  std::string snmp_path = proc_root + "/net/snmp";
  if (Expected<std::string> text = read_text_file(snmp_path); !text) {
    snapshot.problems.push_back(text.error().message);
  } else if (auto tcp = parse_snmp_section(*text, "Tcp"); !tcp) {
    snapshot.problems.push_back(snmp_path + ": " + tcp.error().message);
  } else {
    snapshot.tcp.retrans_segs = value_or_zero(*tcp, "RetransSegs");
    if (!udp) {
      snapshot.transport =
          TransportCounters{value_or_zero(*tcp, "OutSegs"), value_or_zero(*tcp, "InSegs"),
                            value_or_zero(*tcp, "AttemptFails")};
    } else if (auto datagrams = parse_snmp_section(*text, "Udp"); !datagrams) {
      snapshot.problems.push_back(snmp_path + ": " + datagrams.error().message);
    } else {
      TransportCounters transport{value_or_zero(*datagrams, "OutDatagrams"),
                                  value_or_zero(*datagrams, "InDatagrams"),
                                  value_or_zero(*datagrams, "InErrors")};
      add_udp6_counters(proc_root, transport);
      snapshot.transport = transport;
    }
  }

  std::string netstat_path = proc_root + "/net/netstat";
  if (Expected<std::string> text = read_text_file(netstat_path); !text) {
    snapshot.problems.push_back(text.error().message);
  } else if (auto ext = parse_snmp_section(*text, "TcpExt"); !ext) {
    snapshot.problems.push_back(netstat_path + ": " + ext.error().message);
  } else {
    snapshot.tcp.lost_retransmit = value_or_zero(*ext, "TCPLostRetransmit");
    snapshot.tcp.syn_retrans = value_or_zero(*ext, "TCPSynRetrans");
    snapshot.tcp.fast_retrans = value_or_zero(*ext, "TCPFastRetrans");
    snapshot.tcp.forward_retrans = value_or_zero(*ext, "TCPForwardRetrans");
    snapshot.tcp.slow_start_retrans = value_or_zero(*ext, "TCPSlowStartRetrans");
    snapshot.tcp.retrans_fail = value_or_zero(*ext, "TCPRetransFail");
  }
}

// A kernel thread (PF_KTHREAD: no program can pose as one) named ksoftirqd/<cpu>.
bool is_softirq_thread(const TaskTicks& task) {
  constexpr std::string_view prefix = "ksoftirqd/";
  const std::string_view name = task.name;
  return (task.flags & task_flag_kthread) != 0 && name.size() > prefix.size() &&
         name.substr(0, prefix.size()) == prefix &&
         name.find_first_not_of("0123456789", prefix.size()) == std::string_view::npos;
}

// The utime + stime of the task whose stat file this is, when it is a softirq thread.
std::optional<uint64_t> softirq_thread_ticks(const std::string& stat_path) {
  Expected<std::string> text = read_text_file(stat_path);
  if (!text) return std::nullopt;
  Expected<TaskTicks> task = parse_task_stat(*text);
  if (!task || !is_softirq_thread(*task)) return std::nullopt;
  return task->ticks;
}

// Every ksoftirqd thread's utime + stime, or nothing when one cannot be read or is no longer one
// (a sum without it would run backwards, one with another task's time would be wrong).
std::optional<double> softirq_threads_seconds(const std::vector<std::string>& stat_paths) {
  if (stat_paths.empty()) return std::nullopt;
  static const long ticks_per_s = ::sysconf(_SC_CLK_TCK);
  if (ticks_per_s <= 0) return std::nullopt;
  uint64_t ticks = 0;
  for (const std::string& path : stat_paths) {
    const std::optional<uint64_t> thread = softirq_thread_ticks(path);
    if (!thread) return std::nullopt;
    ticks += *thread;
  }
  return static_cast<double>(ticks) / static_cast<double>(ticks_per_s);
}

}  // namespace

std::vector<std::string> find_softirq_threads(const std::string& proc_root) {
  std::vector<std::string> paths;
  DIR* dir = ::opendir(proc_root.c_str());
  if (dir == nullptr) return paths;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string_view name = entry->d_name;
    if (name.empty() || name.find_first_not_of("0123456789") != std::string_view::npos) continue;
    std::string path = proc_root + "/" + std::string(name) + "/stat";
    if (softirq_thread_ticks(path)) paths.push_back(std::move(path));
  }
  ::closedir(dir);
  std::sort(paths.begin(), paths.end());  // readdir promises no order
  return paths;
}

SystemSnapshot SystemProbe::take() const {
  SystemSnapshot snapshot;
  try {
    snapshot.at = std::chrono::steady_clock::now();
    snapshot.queues = queues_.take();

    rusage usage{};
    if (::getrusage(RUSAGE_SELF, &usage) == 0) {
      snapshot.process_user_s = seconds_of(usage.ru_utime);
      snapshot.process_system_s = seconds_of(usage.ru_stime);
    }
    snapshot.softirq_threads_s = softirq_threads_seconds(softirq_thread_stat_paths_);

    std::string stat_path = proc_root_ + "/stat";
    if (Expected<std::string> text = read_text_file(stat_path); !text) {
      snapshot.problems.push_back(text.error().message);
    } else if (Expected<CpuTimes> cpu = parse_proc_stat(*text); !cpu) {
      snapshot.problems.push_back(cpu.error().message);
    } else {
      snapshot.cpu = *cpu;
    }

    read_tcp_counters(proc_root_, udp_, snapshot);

    if (!nic_.empty()) {
      NicPackets nic{nic_, 0, 0};
      std::string base = sys_root_ + "/class/net/" + nic_ + "/statistics/";
      if (auto tx = read_counter_file(base + "tx_packets"); tx) {
        nic.tx_packets = *tx;
      } else {
        snapshot.problems.push_back(tx.error().message);
      }
      if (auto rx = read_counter_file(base + "rx_packets"); rx) {
        nic.rx_packets = *rx;
      } else {
        snapshot.problems.push_back(rx.error().message);
      }
      snapshot.nic = nic;
    }

    if (!interrupt_pattern_.empty()) {
      Interrupts interrupts{interrupt_pattern_, 0};
      if (auto text = read_text_file(proc_root_ + "/interrupts"); text) {
        interrupts.total = sum_interrupts(*text, interrupt_pattern_);
      } else {
        snapshot.problems.push_back(text.error().message);
      }
      snapshot.interrupts = interrupts;
    }
  } catch (const std::exception& e) {  // only allocation can throw here
    snapshot.problems.push_back(fmt::format("system probe failed: {}", e.what()));
  }
  return snapshot;
}

HostInfo read_host_info(const std::string& proc_root) {
  HostInfo host;
  try {
    utsname names{};
    if (::uname(&names) == 0) {
      host.hostname = names.nodename;
      host.kernel = names.release;
      // `uname -a` on GNU/Linux: kernel name, node, release, version, machine, operating system.
      host.os = fmt::format("{} {} {} {} {}", names.sysname, names.nodename, names.release,
                            names.version, names.machine);
      if (std::strcmp(names.sysname, "Linux") == 0) host.os += " GNU/Linux";
    }
    if (auto cpuinfo = read_text_file(proc_root + "/cpuinfo"); cpuinfo) {
      host.cpu_model = parse_cpu_model(*cpuinfo);
      host.cpu_mhz = parse_cpu_mhz(*cpuinfo);
    }
    host.cpu_cores = 1;  // NTTTCP-for-Linux: MAX(cpuN lines, 1)
    if (auto stat = read_text_file(proc_root + "/stat"); stat) {
      if (auto cpu = parse_proc_stat(*stat); cpu && cpu->cores > 0) host.cpu_cores = cpu->cores;
    }
  } catch (const std::exception&) {  // allocation only; return what we have
  }
  return host;
}

Status check_interface_exists(const std::string& name, const std::string& sys_root) {
  bool plausible =
      !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos;
  struct stat info {};
  if (!plausible || ::stat((sys_root + "/class/net/" + name).c_str(), &info) != 0) {
    return fail(fmt::format("--show-nic-packets: no network interface named '{}'", name));
  }
  return ok();
}

}  // namespace xttcp
