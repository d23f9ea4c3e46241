// What SystemProbe is on every platform: the spec's choices and the Linux roots (tests point them
// at fixtures; Windows ignores them). Reading the counters is per platform
// (system_probe_<os>.cc).
#include "engine/stats/system_probe.hh"

#include <utility>

namespace xttcp {

SystemProbe::SystemProbe(const TestSpec& spec, std::string proc_root, std::string sys_root)
    : proc_root_(std::move(proc_root)),
      sys_root_(std::move(sys_root)),
      nic_(spec.output.show_nic_packets),
      interrupt_pattern_(spec.output.show_dev_interrupts),
      udp_(spec.workload.protocol == Protocol::udp),
      queues_(spec, proc_root_),
      softirq_thread_stat_paths_(softirq_threads_of(proc_root_)) {}

}  // namespace xttcp
