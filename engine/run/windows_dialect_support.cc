#include "engine/run/windows_dialect_support.hh"

#include <algorithm>

#include "engine/plan.hh"

namespace xttcp {

Status check_windows_dialect_supported(const TestSpec& spec) {
  if (spec.dialect != Dialect::windows) return ok();
  // The original's -sp receiver hands out every data port on its first mapping's host, so a
  // sender thread towards another of its hosts never gets one.
  if (spec.control.port_assignment && spec.role == Role::receiver &&
      distinct_hosts(spec).size() > 1)
    return fail(
        "-sp: the receiver hands out the data ports on one host only; with mappings on "
        "different hosts run one receiver per host (or drop -sp)");
  if (spec.layout.worker_threads && spec.layout.mappings.size() > 1 &&
      !std::all_of(
          spec.layout.mappings.begin(), spec.layout.mappings.end(),
          [&](const ThreadMapping& m) { return m.cpu == spec.layout.mappings.front().cpu; }))
    return fail(
        "--threads: mappings on different CPUs run one worker each (drop --threads or "
        "give every mapping the same CPU)");
  // The key is proven on xttcp's native sync connection; NTttcp for Windows' start (tokens,
  // -sp, -ns) has none, and its data connections, tied to no proven session, would all be
  // turned away: no test could ever start.
  if (!spec.control.auth_key_file.empty())
    return fail(
        "--auth-key: NTttcp for Windows' start (its tokens, -sp or -ns) proves no key; the key "
        "is for xttcp's own sync connection (--dialect linux), so drop one of them");
  if (spec.control.port_assignment && spec.layout.ipv6)
    return fail(
        "-sp with -6: NTttcp for Windows hands out the data ports over IPv4 only (drop "
        "one of them)");
  return ok();
}

}  // namespace xttcp
