// The table of backends compiled into this binary, in order of preference.
#include <string>

#include "io_backends/backend.hh"
#include "io_backends/epoll/epoll_backend.hh"
#include "io_backends/null/null_backend.hh"
#include "xttcp_config.h"
#if XTTCP_HAVE_LIBURING
#include "io_backends/uring/uring_backend.hh"
#endif
#if XTTCP_HAVE_DPDK
#include "io_backends/dpdk/dpdk_backend.hh"
#endif

namespace xttcp {

std::string describe_capabilities(uint32_t caps) {
  static constexpr std::pair<Capability, const char*> names[] = {
      {cap_tcp, "tcp"},           {cap_udp, "udp"},
      {cap_zerocopy_tx, "zerocopy-tx"}, {cap_multishot_rx, "multishot-rx"},
      {cap_queue_binding, "queue-binding"}, {cap_busy_poll, "busy-poll"},
      {cap_raw_frames, "raw-frames"},
  };
  std::string out;
  for (auto [bit, name] : names) {
    if ((caps & bit) == 0) continue;
    if (!out.empty()) out += ",";
    out += name;
  }
  return out.empty() ? "-" : out;
}

const std::vector<std::unique_ptr<Backend>>& all_backends() {
  static const std::vector<std::unique_ptr<Backend>> backends = [] {
    std::vector<std::unique_ptr<Backend>> list;
#if XTTCP_HAVE_LIBURING
    list.push_back(make_uring_backend());
#endif
    list.push_back(make_epoll_backend());
    list.push_back(make_null_backend());
#if XTTCP_HAVE_DPDK
    list.push_back(make_dpdk_backend());  // never auto: kernel bypass is asked for by name
#endif
    return list;
  }();
  return backends;
}

Expected<Backend*> find_backend(std::string_view name) {
  std::string known;
  for (const auto& backend : all_backends()) {
    if (backend->name() == name) {
      Availability availability = backend->probe();
      if (!availability.available)
        return fail("--backend " + std::string(name) + ": not available: " + availability.reason);
      return backend.get();
    }
    known += (known.empty() ? "" : ", ") + std::string(backend->name());
  }
  return fail("--backend: unknown backend '" + std::string(name) + "' (this build has: auto, " +
              known + "; see 'xttcp backends')");
}

Expected<Backend*> select_backend(const TestSpec& spec) {
  if (spec.backend == auto_backend) {
    for (const auto& backend : all_backends()) {
      if (!backend->probe().available || !backend->auto_refusal(spec).empty()) continue;
      if (backend->check(spec)) return backend.get();
    }
    auto fallback = find_backend(fallback_backend);
    if (!fallback) return fallback.error();
    if (Status supported = (*fallback)->check(spec); !supported) return supported.error();
    return *fallback;
  }
  auto backend = find_backend(spec.backend);
  if (!backend) return backend.error();
  if (Status supported = (*backend)->check(spec); !supported) return supported.error();
  return *backend;
}

}  // namespace xttcp
