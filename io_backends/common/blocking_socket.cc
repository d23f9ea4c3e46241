#include "io_backends/common/blocking_socket.hh"

#include <sys/socket.h>
#include <sys/time.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>

#include "engine/backend/data_worker.hh"
#include "engine/net/socket_setup.hh"

namespace xttcp {

Status block_with_stop_bound(int fd) {
  const timeval bound{
      0, static_cast<suseconds_t>(std::chrono::microseconds(stop_check_interval).count())};
  if (Status made = set_nonblocking(fd, false); !made) return made.error();
  if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &bound, sizeof bound) != 0)
    return fail(std::string("SO_RCVTIMEO: ") + std::strerror(errno));
  if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &bound, sizeof bound) != 0)
    return fail(std::string("SO_SNDTIMEO: ") + std::strerror(errno));
  return ok();
}

}  // namespace xttcp
