// Windows: each processor's times from NtQuerySystemInformation, as the system probe reads them
// for the machine's split (processor_information_windows.hh); no softirqs.
#include "engine/stats/per_cpu_counters.hh"

#include "engine/stats/processor_information_windows.hh"

namespace xttcp {

Expected<std::vector<CpuLineTicks>> read_cpu_ticks(const std::string&) {
  std::vector<nt::ProcessorPerformance> processors;
  if (!nt::query_per_processor(nt::kProcessorPerformanceClass, processors))
    return fail(
        "not available: NtQuerySystemInformation(SystemProcessorPerformanceInformation) failed");
  std::vector<CpuLineTicks> cpus;
  for (std::size_t i = 0; i < processors.size(); ++i) {
    const nt::ProcessorPerformance& p = processors[i];
    CpuLineTicks cpu;
    cpu.cpu = static_cast<std::uint32_t>(i);
    cpu.ticks.user = nt::ticks(p.user);
    cpu.ticks.system = nt::system_ticks(p);
    cpu.ticks.idle = nt::ticks(p.idle);
    cpu.ticks.irq = nt::ticks(p.interrupt);
    cpu.ticks.softirq = nt::ticks(p.dpc);
    cpus.push_back(cpu);
  }
  return cpus;
}

Expected<NetSoftirqs> read_net_softirqs(const std::string&) {
  return fail("not available: Windows has no softirqs (DPC time is each CPU's softirq share)");
}

}  // namespace xttcp
