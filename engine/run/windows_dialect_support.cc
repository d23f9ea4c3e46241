#include "engine/run/windows_dialect_support.hh"

#include <algorithm>

#include "engine/plan.hh"

namespace xttcp {

Status check_windows_dialect_supported(const TestSpec& spec) {
  if (spec.dialect != Dialect::windows) return ok();
  const WindowsOptions& w = spec.windows;
  // The original's -sp receiver hands out every data port on its first mapping's host, so a
  // sender thread towards another of its hosts never gets one.
  if (w.sync_port && spec.role == Role::receiver && distinct_hosts(spec).size() > 1)
    return fail("-sp: the receiver hands out the data ports on one host only; with mappings on "
                "different hosts run one receiver per host (or drop -sp)");
  if (spec.worker_threads && w.mappings.size() > 1 &&
      !std::all_of(w.mappings.begin(), w.mappings.end(),
                   [&](const WindowsMapping& m) { return m.cpu == w.mappings.front().cpu; }))
    return fail("--threads: mappings on different CPUs run one worker each (drop --threads or "
                "give every mapping the same CPU)");
  if (w.sync_port && spec.ipv6)
    return fail("-sp with -6: NTttcp for Windows hands out the data ports over IPv4 only (drop "
                "one of them)");
  return ok();
}

}  // namespace xttcp
