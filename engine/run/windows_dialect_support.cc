#include "engine/run/windows_dialect_support.hh"

#include <algorithm>

namespace xttcp {

Status check_windows_dialect_supported(const TestSpec& spec) {
  if (spec.dialect != Dialect::windows) return ok();
  const WindowsOptions& w = spec.windows;
  const std::string& host = w.mappings.empty() ? std::string() : w.mappings.front().host;
  if (!std::all_of(w.mappings.begin(), w.mappings.end(),
                   [&](const WindowsMapping& m) { return m.host == host; }))
    return fail("-m: mappings towards different hosts in one run are not supported yet (run one "
                "sender per host)");
  if (spec.worker_threads && w.mappings.size() > 1 &&
      !std::all_of(w.mappings.begin(), w.mappings.end(),
                   [&](const WindowsMapping& m) { return m.cpu == w.mappings.front().cpu; }))
    return fail("--threads: mappings on different CPUs run one worker each (drop --threads or "
                "give every mapping the same CPU)");
  if (w.sync_port && spec.ipv6)
    return fail("-sp with -6: NTttcp for Windows hands out the data ports over IPv4 only (drop "
                "one of them)");
  if (w.sample_s > 0)
    return fail("-sam: xttcp does not split a run into result blocks; use --interval SEC (the "
                "per-interval figures are in --json's \"intervals\")");
  if (w.numa_node)
    return fail("-na: xttcp does not bind threads to a NUMA node; use -m THREADS,CPU,HOST with a "
                "CPU of that node (or --pin)");
  return ok();
}

}  // namespace xttcp
