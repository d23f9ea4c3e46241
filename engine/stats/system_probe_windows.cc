// Windows: CPU time per processor, interrupts and DPCs from NtQuerySystemInformation (ntdll,
// loaded at run time: it is not in the import libraries), else GetSystemTimes; TCP segments from
// GetTcpStatisticsEx for IPv4 and IPv6; NIC packets from GetIfTable2; host facts from the
// registry. A counter the OS leaves at zero (Wine does for several) is reported as absent, never
// as a measured 0.
#include "engine/stats/system_probe.hh"

// After winsock2.h (system_probe.hh -> result.hh does not include it; os_socket.hh does).
#include "engine/net/os_socket.hh"
#include "engine/stats/processor_information_windows.hh"

#include <iphlpapi.h>
#include <netioapi.h>

#include <cwchar>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace xttcp {
namespace {

using nt::kInterruptClass;
using nt::kProcessorPerformanceClass;
using nt::minus;
using nt::processor_count;
using nt::ProcessorInterrupts;
using nt::ProcessorPerformance;
using nt::query_per_processor;
using nt::ticks;

// Wine answers SystemInterruptInformation with random bytes (an entropy source for its own
// crypto), so its DPC counts are noise there; Wine is known by ntdll's wine_get_version.
bool running_under_wine() {
  static const bool wine = [] {
    HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
    return ntdll != nullptr && GetProcAddress(ntdll, "wine_get_version") != nullptr;
  }();
  return wine;
}

uint64_t ticks(const FILETIME& value) {
  return (static_cast<uint64_t>(value.dwHighDateTime) << 32) | value.dwLowDateTime;
}

// CpuTimes in 100 ns units: user, system (kernel less idle, DPC and interrupt time), idle, irq
// (interrupt time), softirq (DPC time, Windows' nearest kin). Interrupt and DPC counts too.
void read_cpu(SystemSnapshot& snapshot) {
  CpuTimes& cpu = snapshot.cpu;
  cpu.cores = processor_count();
  std::vector<ProcessorPerformance> processors;
  if (query_per_processor(kProcessorPerformanceClass, processors)) {
    uint64_t interrupts = 0;
    for (const ProcessorPerformance& p : processors) {
      cpu.user += ticks(p.user);
      cpu.idle += ticks(p.idle);
      cpu.irq += ticks(p.interrupt);
      cpu.softirq += ticks(p.dpc);
      cpu.system += nt::system_ticks(p);
      interrupts += p.interrupt_count;
    }
    if (interrupts > 0) snapshot.interrupts = Interrupts{"all", interrupts};
  } else {
    FILETIME idle, kernel, user;
    if (!GetSystemTimes(&idle, &kernel, &user)) {
      snapshot.problems.push_back(
          fmt::format("GetSystemTimes failed with error {}", GetLastError()));
      return;
    }
    cpu.user = ticks(user);
    cpu.idle = ticks(idle);
    cpu.system = minus(ticks(kernel), ticks(idle));
  }
  std::vector<ProcessorInterrupts> interrupt_info;
  if (!running_under_wine() && query_per_processor(kInterruptClass, interrupt_info)) {
    uint64_t dpcs = 0;
    for (const ProcessorInterrupts& p : interrupt_info) dpcs += p.dpc_count;
    if (dpcs > 0) snapshot.dpcs = dpcs;
  }
}

// TCP over both address families; 32-bit counters (a wrap between two edges reads as 0).
void read_tcp(SystemSnapshot& snapshot) {
  TransportCounters transport;
  bool any = false;
  for (ULONG family : {AF_INET, AF_INET6}) {
    MIB_TCPSTATS stats{};
    if (GetTcpStatisticsEx(&stats, family) != NO_ERROR) continue;
    any = true;
    transport.packets_sent += stats.dwOutSegs;
    transport.packets_received += stats.dwInSegs;
    transport.errors += stats.dwAttemptFails;
    snapshot.tcp.retrans_segs += stats.dwRetransSegs;
  }
  if (!any) {
    snapshot.problems.push_back("GetTcpStatisticsEx: no TCP statistics");
    return;
  }
  // A host that has carried our traffic has sent and received segments: zeros mean the OS
  // does not count them (Wine), so they are not reported.
  if (transport.packets_sent + transport.packets_received > 0) snapshot.transport = transport;
}

std::string narrow(const wchar_t* text) {
  std::string out;
  for (; *text != 0; ++text) out += *text < 128 ? static_cast<char>(*text) : '?';
  return out;
}

// The interface named `name`: its alias ("Ethernet"), its description, or its index.
bool find_interface(const std::string& name, MIB_IF_ROW2& found) {
  MIB_IF_TABLE2* table = nullptr;
  if (GetIfTable2(&table) != NO_ERROR || table == nullptr) return false;
  bool matched = false;
  for (ULONG i = 0; i < table->NumEntries && !matched; ++i) {
    const MIB_IF_ROW2& row = table->Table[i];
    if (narrow(row.Alias) == name || narrow(row.Description) == name ||
        std::to_string(row.InterfaceIndex) == name) {
      found = row;
      matched = true;
    }
  }
  FreeMibTable(table);
  return matched;
}

void read_nic(const std::string& name, SystemSnapshot& snapshot) {
  NicPackets nic{name, 0, 0};
  MIB_IF_ROW2 row{};
  if (find_interface(name, row) && GetIfEntry2(&row) == NO_ERROR) {
    nic.tx_packets = row.OutUcastPkts + row.OutNUcastPkts;
    nic.rx_packets = row.InUcastPkts + row.InNUcastPkts;
  } else {
    snapshot.problems.push_back("GetIfEntry2: no interface named '" + name + "'");
  }
  snapshot.nic = nic;
}

double seconds_of(const FILETIME& value) { return static_cast<double>(ticks(value)) / 1e7; }

std::string registry_text(HKEY key, const char* value) {
  char buffer[256] = {};
  DWORD size = sizeof buffer - 1;
  if (RegQueryValueExA(key, value, nullptr, nullptr, reinterpret_cast<BYTE*>(buffer), &size) !=
      ERROR_SUCCESS)
    return {};
  std::string text(buffer);
  const size_t first = text.find_first_not_of(' ');
  const size_t last = text.find_last_not_of(' ');
  return first == std::string::npos ? std::string() : text.substr(first, last - first + 1);
}

}  // namespace

// Windows runs its deferred work (DPCs) in no thread of its own: they are counted apart (dpcs).
std::vector<std::string> find_softirq_threads(const std::string&) { return {}; }

SystemSnapshot SystemProbe::take() const {
  SystemSnapshot snapshot;
  try {
    snapshot.at = std::chrono::steady_clock::now();
    FILETIME created, exited, kernel, user;
    if (GetProcessTimes(GetCurrentProcess(), &created, &exited, &kernel, &user)) {
      snapshot.process_user_s = seconds_of(user);
      snapshot.process_system_s = seconds_of(kernel);
    }
    read_cpu(snapshot);
    read_tcp(snapshot);
    if (!nic_.empty()) read_nic(nic_, snapshot);
    snapshot.queues = queues_.take();  // each CPU's times, when a NIC is watched
  } catch (const std::exception& e) {  // only allocation can throw here
    snapshot.problems.push_back(fmt::format("system probe failed: {}", e.what()));
  }
  return snapshot;
}

HostInfo read_host_info(const std::string&) {
  HostInfo host;
  try {
    char name[256] = {};
    DWORD size = sizeof name;
    if (GetComputerNameExA(ComputerNameDnsHostname, name, &size)) host.hostname = name;
    // RtlGetVersion tells the real version (GetVersionEx lies to unmanifested programs).
    using GetVersion = LONG(WINAPI*)(OSVERSIONINFOW*);
    HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
    auto get_version = ntdll == nullptr ? nullptr
                                        : reinterpret_cast<GetVersion>(reinterpret_cast<void*>(
                                              GetProcAddress(ntdll, "RtlGetVersion")));
    OSVERSIONINFOW version{};
    version.dwOSVersionInfoSize = sizeof version;
    if (get_version != nullptr && get_version(&version) == 0) {
      host.kernel = fmt::format("{}.{}.{}", version.dwMajorVersion, version.dwMinorVersion,
                                version.dwBuildNumber);
      host.os = fmt::format("Windows {} {} x86_64", host.kernel, host.hostname);
    }
    HKEY key;
    if (RegOpenKeyExA(HKEY_LOCAL_MACHINE, "HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0", 0,
                      KEY_READ, &key) == ERROR_SUCCESS) {
      host.cpu_model = registry_text(key, "ProcessorNameString");
      DWORD mhz = 0;
      DWORD length = sizeof mhz;
      if (RegQueryValueExA(key, "~MHz", nullptr, nullptr, reinterpret_cast<BYTE*>(&mhz), &length) ==
          ERROR_SUCCESS)
        host.cpu_mhz = mhz;
      RegCloseKey(key);
    }
    host.cpu_cores = processor_count();
  } catch (const std::exception&) {  // allocation only; return what we have
  }
  return host;
}

Status check_interface_exists(const std::string& name, const std::string&) {
  MIB_IF_ROW2 row{};
  if (name.empty() || !find_interface(name, row))
    return fail(
        fmt::format("--show-nic-packets: no network interface named '{}' (give its alias, "
                    "e.g. \"Ethernet\", or its index)",
                    name));
  return ok();
}

}  // namespace xttcp
