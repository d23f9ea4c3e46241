#include "engine/run/windows_dialect_support.hh"

#include <algorithm>

namespace xttcp {

Status check_windows_dialect_supported(const TestSpec& spec) {
  if (spec.dialect != Dialect::windows) return ok();
  const WindowsOptions& w = spec.windows;
  const std::string later = " is not implemented yet";
  if (w.buffer_count)
    return fail("-n / count mode (a run without -t): counting buffers per thread" + later +
                "; give -t SEC");
  if (spec.protocol == Protocol::udp) return fail("-u: UDP in the Windows dialect" + later);
  const std::string& host = w.mappings.empty() ? std::string() : w.mappings.front().host;
  if (!std::all_of(w.mappings.begin(), w.mappings.end(),
                   [&](const WindowsMapping& m) { return m.host == host; }))
    return fail("-m: mappings towards different hosts in one run" + later);
  if (!std::all_of(w.mappings.begin(), w.mappings.end(),
                   [&](const WindowsMapping& m) { return m.cpu == w.mappings.front().cpu; }))
    return fail("-m: a different CPU per mapping" + later + " (use the same CPU or '*')");
  if (w.async_buffers > 0) return fail("-a: outstanding asynchronous buffers per thread" + later);
  if (w.socket_recv_buffer >= 0) return fail("-rb: setting SO_RCVBUF" + later);
  if (w.socket_send_buffer >= 0) return fail("-sb: setting SO_SNDBUF" + later);
  if (w.sync_port && spec.ipv6)
    return fail("-sp with -6: NTttcp for Windows hands out the data ports over IPv4 only (drop "
                "one of them)");
  if (w.sample_s > 0) return fail("-sam: samples" + later);
  if (w.latency_measurement) return fail("-lm: latency measurement" + later);
  if (w.verify_data) return fail("-d: verifying the received bytes" + later);
  if (w.wait_all) return fail("-wa: MSG_WAITALL receives" + later);
  if (w.wsa) return fail("-w: WSASend/WSARecv" + later);
  if (w.numa_node) return fail("-na: NUMA node affinity" + later);
  if (w.throttle_kBps > 0) return fail("-thr: per-thread throttling" + later);
  return ok();
}

}  // namespace xttcp
