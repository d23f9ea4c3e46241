// NtQuerySystemInformation's per-processor records, shared by the Windows system probe (the
// machine's CPU split, interrupts, DPCs) and per_cpu_counters_windows.cc (each CPU's busy time).
// Windows-only: included by *_windows.cc files alone. ntdll is looked up at run time: its
// function is not in the import libraries.
#pragma once

#include <windows.h>

#include <cstdint>
#include <vector>

namespace xttcp::nt {

// The classes and records as Windows defines them (winternl.h hides the fields needed behind
// "Reserved").
inline constexpr ULONG kProcessorPerformanceClass = 8;  // SystemProcessorPerformanceInformation
inline constexpr ULONG kInterruptClass = 23;            // SystemInterruptInformation
struct ProcessorPerformance {
  LARGE_INTEGER idle, kernel, user, dpc, interrupt;  // 100 ns; kernel includes idle, dpc, irq
  ULONG interrupt_count;
};
struct ProcessorInterrupts {
  ULONG context_switches, dpc_count, dpc_rate, time_increment, dpc_bypass_count, apc_bypass_count;
};

using QuerySystemInformation = LONG(WINAPI*)(ULONG, void*, ULONG, ULONG*);

inline QuerySystemInformation query_function() {
  static const QuerySystemInformation function = [] {
    HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
    if (ntdll == nullptr) return QuerySystemInformation{};
    return reinterpret_cast<QuerySystemInformation>(
        reinterpret_cast<void*>(GetProcAddress(ntdll, "NtQuerySystemInformation")));
  }();
  return function;
}

inline std::uint32_t processor_count() {
  const DWORD count = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
  return count > 0 ? count : 1;
}

// One record per processor, in processor order; false when the call fails.
template <typename Record>
bool query_per_processor(ULONG information_class, std::vector<Record>& records) {
  QuerySystemInformation query = query_function();
  if (query == nullptr) return false;
  records.assign(processor_count(), Record{});
  ULONG returned = 0;
  const LONG status = query(information_class, records.data(),
                            static_cast<ULONG>(records.size() * sizeof(Record)), &returned);
  if (status < 0 || returned < sizeof(Record)) return false;
  records.resize(returned / sizeof(Record));
  return true;
}

inline std::uint64_t ticks(const LARGE_INTEGER& value) {
  return value.QuadPart > 0 ? static_cast<std::uint64_t>(value.QuadPart) : 0;
}
inline std::uint64_t minus(std::uint64_t a, std::uint64_t b) { return a > b ? a - b : 0; }

// Kernel time outside idle, DPCs and interrupts: what Linux calls system time.
inline std::uint64_t system_ticks(const ProcessorPerformance& p) {
  return minus(ticks(p.kernel), ticks(p.idle) + ticks(p.dpc) + ticks(p.interrupt));
}

}  // namespace xttcp::nt
