// The Windows build's backends, in order of preference: iocp (Winsock overlapped I/O on a
// completion port) moves the data; null (no I/O) measures the engine.
#include "io_backends/iocp/iocp_backend.hh"
#include "io_backends/null/null_backend.hh"
#include "io_backends/registry.hh"

namespace xttcp {

const std::vector<std::unique_ptr<Backend>>& all_backends() {
  static const std::vector<std::unique_ptr<Backend>> backends = [] {
    std::vector<std::unique_ptr<Backend>> list;
    list.push_back(make_iocp_backend());
    list.push_back(make_null_backend());
    return list;
  }();
  return backends;
}

std::vector<AbsentBackend> absent_backends() { return {}; }

std::string_view fallback_backend() { return "iocp"; }

}  // namespace xttcp
