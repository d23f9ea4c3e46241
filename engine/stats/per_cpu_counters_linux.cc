// Linux: /proc/stat and /proc/softirqs, read whole and handed to the pure parsers.
#include "engine/stats/per_cpu_counters.hh"

#include "base/read_file.hh"

namespace xttcp {
namespace {

Expected<std::string> read_proc_text(const std::string& path) {
  Expected<std::string> text = read_whole_file(path);
  if (!text) return fail("not available: " + text.error().message);
  return text;
}

}  // namespace

Expected<std::vector<CpuLineTicks>> read_cpu_ticks(const std::string& proc_root) {
  Expected<std::string> text = read_proc_text(proc_root + "/stat");
  if (!text) return text.error();
  Expected<std::vector<CpuLineTicks>> cpus = parse_proc_stat_cpus(*text);
  if (cpus && cpus->empty()) return fail("not available: /proc/stat has no cpuN line");
  return cpus;
}

Expected<NetSoftirqs> read_net_softirqs(const std::string& proc_root) {
  Expected<std::string> text = read_proc_text(proc_root + "/softirqs");
  if (!text) return text.error();
  return parse_proc_softirqs(*text);
}

}  // namespace xttcp
