// Discovery and pinning on Windows: GetLogicalProcessorInformationEx for cores, packages and NUMA
// nodes; the process's affinity for the allowed set; SetThreadGroupAffinity to pin. A CPU's
// number is group x 64 + its bit, as NTttcp for Windows numbers processors across groups.
#include <windows.h>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>

#include "topology/topology.hh"

namespace xttcp {

namespace {

constexpr int cpus_per_group = 64;

std::vector<int> cpus_of(const GROUP_AFFINITY& affinity) {
  std::vector<int> cpus;
  for (int bit = 0; bit < cpus_per_group; ++bit)
    if ((affinity.Mask >> bit) & 1) cpus.push_back(affinity.Group * cpus_per_group + bit);
  return cpus;
}

// The records of one relationship, or empty when the call fails.
std::vector<unsigned char> processor_records(LOGICAL_PROCESSOR_RELATIONSHIP relation) {
  DWORD size = 0;
  GetLogicalProcessorInformationEx(relation, nullptr, &size);
  std::vector<unsigned char> buffer(size);
  if (size == 0 ||
      !GetLogicalProcessorInformationEx(
          relation, reinterpret_cast<SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX*>(buffer.data()),
          &size))
    return {};
  buffer.resize(size);
  return buffer;
}

// Calls visit(record) for each record of `relation`.
template <typename Visit>
void for_each_record(LOGICAL_PROCESSOR_RELATIONSHIP relation, Visit visit) {
  const std::vector<unsigned char> buffer = processor_records(relation);
  for (std::size_t offset = 0; offset < buffer.size();) {
    const auto* record =
        reinterpret_cast<const SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX*>(buffer.data() + offset);
    if (record->Size == 0) break;
    visit(*record);
    offset += record->Size;
  }
}

// The process's allowed CPUs. With one processor group the process affinity mask says; a
// process spread over several groups (Windows 11) may run on all of them.
std::vector<int> allowed_cpus(const std::map<int, CpuInfo>& known) {
  std::vector<int> allowed;
  DWORD_PTR process_mask = 0;
  DWORD_PTR system_mask = 0;
  const bool one_group = GetActiveProcessorGroupCount() == 1;
  if (one_group && GetProcessAffinityMask(GetCurrentProcess(), &process_mask, &system_mask)) {
    for (int bit = 0; bit < cpus_per_group; ++bit)
      if ((process_mask >> bit) & 1) allowed.push_back(bit);
    return allowed;
  }
  for (const auto& [cpu, info] : known) allowed.push_back(cpu);
  return allowed;
}

}  // namespace

Topology discover_topology() {
  std::map<int, CpuInfo> cpus;
  int core = 0;
  for_each_record(RelationProcessorCore, [&](const SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX& r) {
    for (WORD g = 0; g < r.Processor.GroupCount; ++g)
      for (int cpu : cpus_of(r.Processor.GroupMask[g])) cpus[cpu] = CpuInfo{cpu, core, 0, 0};
    ++core;
  });
  int package = 0;
  for_each_record(RelationProcessorPackage, [&](const SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX& r) {
    for (WORD g = 0; g < r.Processor.GroupCount; ++g)
      for (int cpu : cpus_of(r.Processor.GroupMask[g]))
        if (cpus.count(cpu)) cpus[cpu].package = package;
    ++package;
  });
  for_each_record(RelationNumaNode, [&](const SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX& r) {
    for (int cpu : cpus_of(r.NumaNode.GroupMask))
      if (cpus.count(cpu)) cpus[cpu].numa_node = static_cast<int>(r.NumaNode.NodeNumber);
  });

  Topology topology;
  topology.source = "GetLogicalProcessorInformationEx";
  for (int cpu : allowed_cpus(cpus))
    if (auto found = cpus.find(cpu); found != cpus.end()) topology.cpus.push_back(found->second);
  if (topology.cpus.empty()) {  // never empty, as topology.hh promises
    topology.cpus.push_back(CpuInfo{});
    topology.source = "CPU 0 only (GetLogicalProcessorInformationEx found no allowed CPU)";
  }
  return topology;
}

Status pin_current_thread(int cpu) {
  if (cpu < 0) return fail(fmt::format("cannot pin to cpu {}: not a CPU number", cpu));
  GROUP_AFFINITY affinity{};
  affinity.Group = static_cast<WORD>(cpu / cpus_per_group);
  affinity.Mask = KAFFINITY{1} << (cpu % cpus_per_group);
  if (!SetThreadGroupAffinity(GetCurrentThread(), &affinity, nullptr))
    return fail(fmt::format("cannot pin to cpu {}: SetThreadGroupAffinity failed (error {})", cpu,
                            GetLastError()));
  return ok();
}

Status restrict_current_thread(const std::vector<int>& cpus) {
  if (cpus.empty()) return fail("cannot restrict to no cpu: the set is empty");
  if (const int lowest = *std::min_element(cpus.begin(), cpus.end()); lowest < 0)
    return fail(fmt::format("cannot restrict to cpu {}: cpu numbers start at 0", lowest));
  const std::string list = format_cpu_list(cpus);
  // A thread's affinity lies in one processor group: the first CPU's (a NUMA node's mask does).
  GROUP_AFFINITY affinity{};
  affinity.Group = static_cast<WORD>(cpus.front() / cpus_per_group);
  for (int cpu : cpus)
    if (cpu / cpus_per_group == affinity.Group)
      affinity.Mask |= KAFFINITY{1} << (cpu % cpus_per_group);
  if (!SetThreadGroupAffinity(GetCurrentThread(), &affinity, nullptr))
    return fail(fmt::format("cannot restrict to cpus {}: SetThreadGroupAffinity failed (error {})",
                            list, GetLastError()));
  return ok();
}

Expected<std::vector<int>> nic_local_cpus(const std::string& ifname) {
  return fail(ifname + ": NIC CPU locality is not available in the Windows build yet");
}

}  // namespace xttcp
