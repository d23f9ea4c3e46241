// A worker with one socket blocks in its calls instead of polling (Linux kernel-socket backends).
#pragma once

#include "base/status.hh"

namespace xttcp {

// Makes `fd` blocking, with send and receive timeouts of stop_check_interval, so a worker's run()
// still sees `stop` in time: a call that waited that long with nothing done fails with EAGAIN.
// Error: "SO_SNDTIMEO: <reason>" (or the O_NONBLOCK change's).
Status block_with_stop_bound(int fd);

}  // namespace xttcp
