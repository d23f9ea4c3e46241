#include "io_backends/common/socket_buffers.hh"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

#include <fmt/format.h>

namespace xttcp {

namespace {

bool send_buffer_asked(const IoOptions& io) {
  return io.socket_send_buffer >= 0 && !io.send_buffer_implied;
}

Status set_socket_buffer(int fd, int name, int64_t bytes, const char* option, const char* label) {
  const int value = static_cast<int>(std::min<int64_t>(bytes, INT_MAX / 2));
  if (setsockopt(fd, SOL_SOCKET, name, &value, sizeof value) != 0)
    return fail(fmt::format("{} {}: {}: {}", option, bytes, label, std::strerror(errno)));
  return ok();
}

int read_socket_buffer(int fd, int name) {
  int value = 0;
  socklen_t length = sizeof value;
  if (getsockopt(fd, SOL_SOCKET, name, &value, &length) != 0) return -1;
  return value;
}

}  // namespace

Status apply_socket_buffers(int fd, const TestSpec& spec) {
  if (spec.io.socket_recv_buffer >= 0)
    if (Status set =
            set_socket_buffer(fd, SO_RCVBUF, spec.io.socket_recv_buffer, "-rb", "SO_RCVBUF");
        !set)
      return set;
  if (send_buffer_asked(spec.io))
    if (Status set =
            set_socket_buffer(fd, SO_SNDBUF, spec.io.socket_send_buffer, "-sb", "SO_SNDBUF");
        !set)
      return set;
  return ok();
}

std::string socket_buffer_note(int fd, const TestSpec& spec) {
  std::string note;
  auto add = [&](const char* option, int64_t asked, const char* label, int name) {
    if (!note.empty()) note += "; ";
    note += fmt::format("{} {}: {} is {}", option, asked, label, read_socket_buffer(fd, name));
  };
  if (spec.io.socket_recv_buffer >= 0)
    add("-rb", spec.io.socket_recv_buffer, "SO_RCVBUF", SO_RCVBUF);
  if (send_buffer_asked(spec.io)) add("-sb", spec.io.socket_send_buffer, "SO_SNDBUF", SO_SNDBUF);
  if (!note.empty()) note += " (Linux doubles the value asked, and keeps a minimum)";
  return note;
}

}  // namespace xttcp
