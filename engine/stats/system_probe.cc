// What SystemProbe is on every platform: the spec's choices and the Linux roots (tests point them
// at fixtures; Windows ignores them). Reading the counters is per platform
// (system_probe_<os>.cc).
#include "engine/stats/system_probe.hh"

#include <map>
#include <mutex>
#include <utility>

namespace xttcp {

const std::vector<std::string>& softirq_threads_of(const std::string& proc_root) {
  static std::mutex mutex;
  static std::map<std::string, std::vector<std::string>> found;  // never shrinks: a few roots
  std::lock_guard lock(mutex);
  auto it = found.find(proc_root);
  if (it == found.end()) it = found.emplace(proc_root, find_softirq_threads(proc_root)).first;
  return it->second;
}

SystemProbe::SystemProbe(const TestSpec& spec, std::string proc_root, std::string sys_root)
    : proc_root_(std::move(proc_root)),
      sys_root_(std::move(sys_root)),
      nic_(spec.output.show_nic_packets),
      interrupt_pattern_(spec.output.show_dev_interrupts),
      udp_(spec.workload.protocol == Protocol::udp),
      queues_(spec, proc_root_),
      softirq_thread_stat_paths_(softirq_threads_of(proc_root_)) {}

}  // namespace xttcp
