// sched_getaffinity + sysfs: the allowed set, cores/packages/NUMA nodes, pinning, NIC locality.
// Built in every configuration (hwloc uses it as its fallback and for pinning).
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "topology/affinity.hh"
#include "topology/topology.hh"

namespace xttcp {
namespace {

struct CpuSetDeleter {
  void operator()(cpu_set_t* set) const { CPU_FREE(set); }
};
using CpuSet = std::unique_ptr<cpu_set_t, CpuSetDeleter>;

std::optional<std::string> read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  return line;
}

std::optional<int> read_int(const std::string& path) {
  auto line = read_first_line(path);
  if (!line) return std::nullopt;
  char* end = nullptr;
  long value = std::strtol(line->c_str(), &end, 10);
  if (end == line->c_str() || value < INT_MIN || value > INT_MAX) return std::nullopt;
  return static_cast<int>(value);
}

// The "nodeK" entry of /sys/devices/system/cpu/cpuN, or 0 on machines without NUMA.
int numa_node_of(const std::string& cpu_dir) {
  DIR* dir = ::opendir(cpu_dir.c_str());
  if (dir == nullptr) return 0;
  int node = 0;
  while (dirent* entry = ::readdir(dir)) {
    std::string_view name = entry->d_name;
    if (name.size() > 4 && name.substr(0, 4) == "node") {
      if (auto parsed = parse_cpu_list(name.substr(4)); parsed && parsed->size() == 1) {
        node = parsed->front();
        break;
      }
    }
  }
  ::closedir(dir);
  return node;
}

bool is_directory(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

}  // namespace

namespace affinity {

Expected<std::vector<int>> allowed_cpus() {
  // The kernel's mask may be larger than CPU_SETSIZE: grow until it fits.
  for (int count = CPU_SETSIZE; count <= (1 << 22); count *= 2) {
    CpuSet set(CPU_ALLOC(count));
    if (!set) return fail("sched_getaffinity: out of memory");
    std::size_t size = CPU_ALLOC_SIZE(count);
    CPU_ZERO_S(size, set.get());
    if (::sched_getaffinity(0, size, set.get()) != 0) {
      if (errno == EINVAL) continue;
      return fail(fmt::format("sched_getaffinity: {}", std::strerror(errno)));
    }
    std::vector<int> cpus;
    for (int cpu = 0; cpu < count; ++cpu) {
      if (CPU_ISSET_S(cpu, size, set.get())) cpus.push_back(cpu);
    }
    return cpus;
  }
  return fail("sched_getaffinity: the CPU mask is too large");
}

Status check_nic_has_device(const std::string& ifname, const std::string& sys_root) {
  if (ifname.empty() || ifname.find('/') != std::string::npos ||
      !is_directory(sys_root + "/class/net/" + ifname)) {
    return fail(fmt::format("no network interface named '{}'", ifname));
  }
  if (!is_directory(sys_root + "/class/net/" + ifname + "/device")) {
    return fail(fmt::format("{} is a virtual interface (no device): no CPU locality", ifname));
  }
  return ok();
}

Expected<std::vector<int>> restrict_to_topology(const std::string& ifname,
                                                const std::vector<int>& local,
                                                const Topology& topology) {
  std::vector<int> usable;
  for (int cpu : placement_order(topology)) {
    if (std::find(local.begin(), local.end(), cpu) != local.end()) usable.push_back(cpu);
  }
  if (usable.empty()) {
    return fail(fmt::format("none of {}'s local cpus ({}) may be used by this process", ifname,
                            format_cpu_list(local)));
  }
  return usable;
}

Expected<std::vector<int>> nic_local_cpus_sysfs(const std::string& ifname, const Topology& topology,
                                                const std::string& sys_root) {
  if (Status has_device = check_nic_has_device(ifname, sys_root); !has_device) {
    return has_device.error();
  }
  char resolved[PATH_MAX];
  std::string device = sys_root + "/class/net/" + ifname + "/device";
  if (::realpath(device.c_str(), resolved) == nullptr) {
    return fail(fmt::format("{}: cannot resolve {}: {}", ifname, device, std::strerror(errno)));
  }
  // virtio-net: the device is virtioN and its PCI function, with local_cpulist, is one level up.
  std::string dir = resolved;
  for (int level = 0; level < 3 && !dir.empty(); ++level) {
    if (auto list = read_first_line(dir + "/local_cpulist")) {
      Expected<std::vector<int>> local = parse_cpu_list(*list);
      if (!local)
        return fail(fmt::format("{}: {}/local_cpulist: {}", ifname, dir, local.error().message));
      return restrict_to_topology(ifname, *local, topology);
    }
    dir = dir.substr(0, dir.rfind('/'));
  }
  return fail(fmt::format("{}'s device has no local_cpulist: no CPU locality", ifname));
}

}  // namespace affinity

Topology discover_topology_without_hwloc(const std::string& sys_root) {
  Topology topology;
  Expected<std::vector<int>> allowed = affinity::allowed_cpus();
  if (!allowed || allowed->empty()) {
    topology.source = fmt::format("none ({}): assuming cpu 0",
                                  allowed ? "empty affinity mask" : allowed.error().message);
    topology.cpus.push_back(CpuInfo{});
    return topology;
  }
  topology.source = "sched_getaffinity";
  std::map<std::pair<int, int>, int> core_numbers;  // (package, core_id) -> unique core number
  for (int cpu : *allowed) {
    std::string dir = fmt::format("{}/devices/system/cpu/cpu{}", sys_root, cpu);
    CpuInfo info;
    info.os_index = cpu;
    info.package = read_int(dir + "/topology/physical_package_id").value_or(0);
    if (info.package < 0) info.package = 0;
    // Without core_id every CPU counts as its own core.
    int core_id = read_int(dir + "/topology/core_id").value_or(-1 - cpu);
    auto [it, inserted] =
        core_numbers.try_emplace({info.package, core_id}, static_cast<int>(core_numbers.size()));
    info.core = it->second;
    info.numa_node = numa_node_of(dir);
    topology.cpus.push_back(info);
  }
  return topology;
}

Status pin_current_thread(int cpu) {
  if (cpu < 0) return fail(fmt::format("cannot pin to cpu {}: cpu numbers start at 0", cpu));
  int count = std::max(cpu + 1, static_cast<int>(CPU_SETSIZE));
  CpuSet set(CPU_ALLOC(count));
  if (!set) return fail(fmt::format("cannot pin to cpu {}: out of memory", cpu));
  std::size_t size = CPU_ALLOC_SIZE(count);
  CPU_ZERO_S(size, set.get());
  CPU_SET_S(cpu, size, set.get());
  int error = ::pthread_setaffinity_np(::pthread_self(), size, set.get());
  if (error == 0) return ok();
  if (error == EINVAL) {
    Expected<std::vector<int>> allowed = affinity::allowed_cpus();
    return fail(fmt::format(
        "cannot pin to cpu {}: not a CPU this process may use{}", cpu,
        allowed ? fmt::format(" (allowed: {})", format_cpu_list(*allowed)) : std::string()));
  }
  return fail(fmt::format("cannot pin to cpu {}: {}", cpu, std::strerror(error)));
}

Status restrict_current_thread(const std::vector<int>& cpus) {
  if (cpus.empty()) return fail("cannot restrict to no cpu: the set is empty");
  if (const int lowest = *std::min_element(cpus.begin(), cpus.end()); lowest < 0)
    return fail(fmt::format("cannot restrict to cpu {}: cpu numbers start at 0", lowest));
  const std::string list = format_cpu_list(cpus);
  const int highest = *std::max_element(cpus.begin(), cpus.end());
  int count = std::max(highest + 1, static_cast<int>(CPU_SETSIZE));
  CpuSet set(CPU_ALLOC(count));
  if (!set) return fail(fmt::format("cannot restrict to cpus {}: out of memory", list));
  std::size_t size = CPU_ALLOC_SIZE(count);
  CPU_ZERO_S(size, set.get());
  for (int cpu : cpus) CPU_SET_S(cpu, size, set.get());
  int error = ::pthread_setaffinity_np(::pthread_self(), size, set.get());
  if (error == 0) return ok();
  return fail(fmt::format("cannot restrict to cpus {}: {}", list, std::strerror(error)));
}

}  // namespace xttcp
