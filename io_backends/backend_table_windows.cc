// The Windows build's backends, and those it lacks: the IOCP data path is not written yet, so
// only `null` (no I/O) runs here.
#include "io_backends/backend.hh"
#include "io_backends/null/null_backend.hh"

namespace xttcp {

const std::vector<std::unique_ptr<Backend>>& all_backends() {
  static const std::vector<std::unique_ptr<Backend>> backends = [] {
    std::vector<std::unique_ptr<Backend>> list;
    list.push_back(make_null_backend());
    return list;
  }();
  return backends;
}

std::vector<AbsentBackend> absent_backends() {
  return {{"iocp", "not written yet (Winsock overlapped I/O on a completion port)"}};
}

std::string_view fallback_backend() { return ""; }

}  // namespace xttcp
