// Linux: sockets are file descriptors and errors are errno values.
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>

#include "engine/net/os_socket.hh"

namespace xttcp {

void close_socket(NativeSocket socket) { ::close(socket); }

int last_socket_error() { return errno; }

std::string socket_error_text(int error) {
  std::string text = std::strerror(error);
  if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return text;
}

SocketError classify_socket_error(int error) {
  switch (error) {
    case EAGAIN:
#if EWOULDBLOCK != EAGAIN
    case EWOULDBLOCK:
#endif
      return SocketError::would_block;
    case EINPROGRESS: return SocketError::in_progress;
    case EINTR: return SocketError::interrupted;
    case ECONNREFUSED: return SocketError::refused;
    case ECONNRESET:
    case EPIPE: return SocketError::reset;
    default: return SocketError::other;
  }
}

}  // namespace xttcp
