// The Linux build's backends, in order of preference, and those it lacks.
#include "io_backends/epoll/epoll_backend.hh"
#include "io_backends/null/null_backend.hh"
#include "io_backends/registry.hh"
#include "xttcp_config.h"
#if XTTCP_HAVE_LIBURING
#include "io_backends/uring/uring_backend.hh"
#endif
#if XTTCP_HAVE_DPDK
#include "io_backends/dpdk/dpdk_backend.hh"
#endif

namespace xttcp {

const std::vector<std::unique_ptr<Backend>>& all_backends() {
  // epoll first: measured as fast as io_uring for one stream and faster for many (both with the
  // receive mark; bench/README.md, machine B quiet); io_uring when an option needs it (--sqpoll).
  static const std::vector<std::unique_ptr<Backend>> backends = [] {
    std::vector<std::unique_ptr<Backend>> list;
    list.push_back(make_epoll_backend());
#if XTTCP_HAVE_LIBURING
    list.push_back(make_uring_backend());
#endif
    list.push_back(make_null_backend());
#if XTTCP_HAVE_DPDK
    list.push_back(make_dpdk_backend());  // never auto: kernel bypass is asked for by name
#endif
    return list;
  }();
  return backends;
}

std::vector<AbsentBackend> absent_backends() {
  std::vector<AbsentBackend> absent;
  if (!XTTCP_HAVE_LIBURING)
    absent.push_back({"io_uring", "not compiled in (liburing not found at build time)"});
  if (!XTTCP_HAVE_DPDK)
    absent.push_back({"dpdk",
                      "not compiled in (libdpdk not found at build time: "
                      "scripts/install-deps.sh installs it)"});
  return absent;
}

std::string_view fallback_backend() { return "epoll"; }

}  // namespace xttcp
