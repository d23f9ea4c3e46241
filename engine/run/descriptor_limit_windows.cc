// Windows: sockets are handles with no per-process limit like RLIMIT_NOFILE.
#include "engine/run/descriptor_limit.hh"

namespace xttcp {

uint64_t open_files_limit() { return UINT64_MAX; }

uint64_t open_files_in_use() { return 0; }

Status fit_open_files(const TestSpec&, uint64_t) { return ok(); }

}  // namespace xttcp
