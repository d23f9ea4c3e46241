// MSG_ZEROCOPY completions: each zero-copy send() is acknowledged later on the socket's error
// queue, in ranges, with a flag when the kernel had to copy after all (loopback and veth always
// do). Control-path cost: read only when a send would block or the socket reports an error.
#pragma once

#include "engine/result.hh"

namespace xttcp {

// Reads every pending completion of `fd` into `stats` (notifications, copied). Never blocks.
// Returns false when the error queue held a real socket error rather than completions.
bool drain_zerocopy_completions(int fd, ZeroCopyStats& stats);

// SO_ZEROCOPY on `fd`; false (errno set) when the kernel refuses.
bool enable_zerocopy(int fd);

// Were at least 95 % of the completions so far copies? (--zerocopy=auto's rule.)
inline bool mostly_copied(const ZeroCopyStats& stats) {
  return stats.notifications > 0 && stats.copied * 100 >= stats.notifications * 95;
}

// --zerocopy=auto: after enough completions, are nearly all of them copies?
inline bool zerocopy_is_futile(const ZeroCopyStats& stats) {
  return stats.notifications >= 1000 && mostly_copied(stats);
}

}  // namespace xttcp
