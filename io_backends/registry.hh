// The backends this build has, and the choice among them. The registry is the one place that
// knows every backend by name (backend_table_<os>.cc lists them); the engine only sees the
// Backend it is handed (engine/backend/backend.hh).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.hh"
#include "engine/backend/backend.hh"
#include "engine/spec.hh"

namespace xttcp {

// Every backend compiled into this binary, in order of preference (backend_table_<os>.cc).
const std::vector<std::unique_ptr<Backend>>& all_backends();
// Backends this OS could have but this binary lacks, with the reason, for 'xttcp backends'.
struct AbsentBackend {
  std::string name;
  std::string reason;
};
std::vector<AbsentBackend> absent_backends();
// The named backend if compiled in and available, else a one-line reason.
Expected<Backend*> find_backend(std::string_view name);
// The backend that runs `spec`, chosen and checked against it (Backend::check) once, before
// anything starts: the tools layer calls this and hands the run the result. The spec's --backend
// by name; or for "auto" the first backend in preference order whose auto_refusal() is empty and
// which accepts the spec, else fallback_backend() (epoll on Linux, iocp on Windows). With auto,
// BackendChoice::auto_note names the backends auto would have preferred but that refuse one of the
// spec's options, e.g. "--backend auto runs epoll: -lm: the io_uring backend does not time each
// send/recv call (use --backend epoll)"; "" when none was passed over for an option.
// `measured_best` (the tools layer's record of what calibrate measured fastest for this shape on
// this host) goes before the preference order when it is available and accepts the spec;
// BackendChoice::measured then says auto took it.
Expected<BackendChoice> choose_backend(const TestSpec& spec, std::string_view measured_best = {});
inline constexpr std::string_view auto_backend = "auto";
// What `auto` takes when no backend asks for the spec; "" when this build has none.
std::string_view fallback_backend();

}  // namespace xttcp
