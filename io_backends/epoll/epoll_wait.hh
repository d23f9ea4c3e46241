// What every epoll worker's wait shares: events taken per epoll_wait, and the longest block
// (the backend contract's stop_check_interval).
#pragma once

#include "engine/backend/data_worker.hh"

namespace xttcp {

inline constexpr int epoll_batch = 256;
inline constexpr int epoll_wait_ms = static_cast<int>(stop_check_interval.count());

}  // namespace xttcp
