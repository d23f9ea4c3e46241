// The options of a spec that only some data paths honour, held against a backend's
// capabilities() in one place, so no backend lists them again in its check(). The one entry that
// accepts a backend for a spec is accepts(): its own check(), then these.
#pragma once

#include "base/status.hh"
#include "engine/backend/backend.hh"
#include "engine/spec.hh"

namespace xttcp {

// ok() when `spec` asks only for options `backend`'s capabilities list, else one line naming
// the option, the backend and where it is honoured, e.g. "-d: the io_uring backend does not
// verify the received bytes (use --backend epoll)". The options are named as the Windows
// dialect spells them: only that grammar sets them today.
Status check_backend_options(const TestSpec& spec, const Backend& backend);

// The backend's own check(), then check_backend_options: whether it runs `spec` as asked.
Status accepts(const Backend& backend, const TestSpec& spec);

}  // namespace xttcp
