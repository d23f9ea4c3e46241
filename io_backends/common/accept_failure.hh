// accept() failures shared by every kernel-socket receiver (control path).
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

namespace xttcp {

// Out of descriptors or memory: retrying at once would only spin, so the listener stops
// accepting (the connections it has go on being served) and the run reports the error.
inline bool accept_failure_lasts(int err) {
  return err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM;
}

// One line naming the port, the reason and, when it helps, what to do.
inline std::string describe_accept_failure(uint16_t port, int err) {
  return "accept on port " + std::to_string(port) + ": " + std::strerror(err) +
         (err == EMFILE ? " (raise the open-files limit: ulimit -n)" : "");
}

}  // namespace xttcp
