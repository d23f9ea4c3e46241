// Linux: control-plane socket I/O with send/recv and poll(2).
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

#include "engine/net/socket_io.hh"

namespace xttcp {

SocketTransfer send_some(NativeSocket socket, const char* data, size_t size) {
  const ssize_t sent = ::send(socket, data, size, MSG_NOSIGNAL);
  return sent < 0 ? SocketTransfer{-1, errno} : SocketTransfer{sent, 0};
}

SocketTransfer receive_some(NativeSocket socket, char* into, size_t size) {
  const ssize_t got = ::recv(socket, into, size, 0);
  return got < 0 ? SocketTransfer{-1, errno} : SocketTransfer{got, 0};
}

SocketTransfer receive_now(NativeSocket socket, char* into, size_t size) {
  const ssize_t got = ::recv(socket, into, size, MSG_DONTWAIT);
  return got < 0 ? SocketTransfer{-1, errno} : SocketTransfer{got, 0};
}

SocketTransfer receive_datagram(NativeSocket socket, char* into, size_t size, SocketAddress& from) {
  from.length = sizeof from.storage;
  const ssize_t got = ::recvfrom(socket, into, size, MSG_DONTWAIT, from.get(), &from.length);
  return got < 0 ? SocketTransfer{-1, errno} : SocketTransfer{got, 0};
}

int wait_socket(NativeSocket socket, WaitFor what, std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    // Round up so a sub-millisecond remainder still polls once instead of spinning.
    const int wait_ms = static_cast<int>(std::clamp<int64_t>(left.count() + 1, 0, 1 << 30));
    pollfd entry{socket, static_cast<short>(what == WaitFor::read ? POLLIN : POLLOUT), 0};
    const int rc = ::poll(&entry, 1, left.count() < 0 ? 0 : wait_ms);
    if (rc < 0 && errno == EINTR) continue;
    return rc;
  }
}

int poll_sockets(std::vector<SocketPoll>& entries, int timeout_ms) {
  std::vector<pollfd> fds(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    fds[i].fd = entries[i].socket;
    fds[i].events = static_cast<short>((entries[i].want_read ? POLLIN : 0) |
                                       (entries[i].want_write ? POLLOUT : 0));
  }
  const int rc = ::poll(fds.data(), fds.size(), timeout_ms);
  for (size_t i = 0; i < entries.size(); ++i) {
    const short got = rc > 0 ? fds[i].revents : 0;
    entries[i].readable = (got & POLLIN) != 0;
    entries[i].writable = (got & POLLOUT) != 0;
    entries[i].hung_up = (got & (POLLHUP | POLLERR)) != 0;
  }
  return rc;
}

Expected<std::optional<UniqueSocket>> accept_connection(NativeSocket listener,
                                                        SocketAddress* peer) {
  for (;;) {
    SocketAddress address;
    address.length = sizeof address.storage;
    UniqueSocket fd(
        accept4(listener, address.get(), &address.length, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (fd.valid()) {
      if (peer != nullptr) *peer = address;
      return std::optional<UniqueSocket>(std::move(fd));
    }
    if (errno == EINTR || errno == ECONNABORTED) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return std::optional<UniqueSocket>();
    return fail(socket_error_text(errno));
  }
}

bool peer_hung_up(NativeSocket socket) {
  pollfd p{socket, POLLRDHUP, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

void shutdown_socket(NativeSocket socket) { ::shutdown(socket, SHUT_RDWR); }

Expected<SocketAddress> local_address_of(NativeSocket socket) {
  SocketAddress bound;
  bound.length = sizeof bound.storage;
  if (getsockname(socket, bound.get(), &bound.length) != 0)
    return fail("getsockname: " + socket_error_text(errno));
  return bound;
}

Expected<SocketAddress> peer_address_of(NativeSocket socket) {
  SocketAddress peer;
  peer.length = sizeof peer.storage;
  if (getpeername(socket, peer.get(), &peer.length) != 0)
    return fail("getpeername: " + socket_error_text(errno));
  return peer;
}

void set_no_delay(NativeSocket socket) {
  int one = 1;
  setsockopt(socket, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

}  // namespace xttcp
