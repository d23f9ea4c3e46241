// Windows: control-plane socket I/O with Winsock. One socket is waited on with select(), which
// reports a failed connect (in its except set) where WSAPoll does not on some Windows versions;
// many sockets with WSAPoll.
#include <algorithm>
#include <climits>

#include "engine/net/socket_io.hh"
#include "engine/net/socket_setup.hh"

namespace xttcp {

namespace {

int clamp_size(size_t size) { return static_cast<int>(std::min<size_t>(size, INT_MAX)); }

}  // namespace

SocketTransfer send_some(NativeSocket socket, const char* data, size_t size) {
  const int sent = ::send(socket, data, clamp_size(size), 0);
  return sent == SOCKET_ERROR ? SocketTransfer{-1, WSAGetLastError()} : SocketTransfer{sent, 0};
}

SocketTransfer receive_some(NativeSocket socket, char* into, size_t size) {
  const int got = ::recv(socket, into, clamp_size(size), 0);
  return got == SOCKET_ERROR ? SocketTransfer{-1, WSAGetLastError()} : SocketTransfer{got, 0};
}

// Winsock has no MSG_DONTWAIT: receive only what FIONREAD says is there.
SocketTransfer receive_now(NativeSocket socket, char* into, size_t size) {
  u_long ready = 0;
  if (::ioctlsocket(socket, FIONREAD, &ready) == SOCKET_ERROR)
    return SocketTransfer{-1, WSAGetLastError()};
  if (ready == 0) return SocketTransfer{-1, WSAEWOULDBLOCK};
  return receive_some(socket, into, std::min<size_t>(size, ready));
}

SocketTransfer receive_datagram(NativeSocket socket, char* into, size_t size, SocketAddress& from) {
  int length = static_cast<int>(sizeof from.storage);
  const int got = ::recvfrom(socket, into, static_cast<int>(size), 0, from.get(), &length);
  from.length = length;
  // A datagram larger than the buffer: its first bytes came, as on Linux.
  if (got == SOCKET_ERROR && WSAGetLastError() == WSAEMSGSIZE)
    return SocketTransfer{static_cast<int64_t>(size), 0};
  return got == SOCKET_ERROR ? SocketTransfer{-1, WSAGetLastError()} : SocketTransfer{got, 0};
}

int wait_socket(NativeSocket socket, WaitFor what, std::chrono::steady_clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::microseconds>(
      deadline - std::chrono::steady_clock::now());
  const int64_t us = std::clamp<int64_t>(left.count(), 0, int64_t{INT_MAX} * 1000);
  timeval timeout{static_cast<long>(us / 1000000), static_cast<long>(us % 1000000)};
  fd_set ready, failed;
  FD_ZERO(&ready);
  FD_ZERO(&failed);
  FD_SET(socket, &ready);
  FD_SET(socket, &failed);
  const int rc = what == WaitFor::read ? ::select(0, &ready, nullptr, &failed, &timeout)
                                       : ::select(0, nullptr, &ready, &failed, &timeout);
  return rc == SOCKET_ERROR ? -1 : rc;
}

int poll_sockets(std::vector<SocketPoll>& entries, int timeout_ms) {
  std::vector<WSAPOLLFD> fds(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    fds[i].fd = entries[i].socket;
    // WSAPoll refuses POLLERR/POLLHUP in events: it reports them anyway.
    fds[i].events = static_cast<short>((entries[i].want_read ? POLLRDNORM : 0) |
                                       (entries[i].want_write ? POLLWRNORM : 0));
  }
  const int rc = WSAPoll(fds.data(), static_cast<ULONG>(fds.size()), timeout_ms);
  for (size_t i = 0; i < entries.size(); ++i) {
    const short got = rc > 0 ? fds[i].revents : 0;
    entries[i].readable = (got & POLLRDNORM) != 0;
    entries[i].writable = (got & POLLWRNORM) != 0;
    entries[i].hung_up = (got & (POLLHUP | POLLERR)) != 0;
  }
  return rc == SOCKET_ERROR ? -1 : rc;
}

Expected<std::optional<UniqueSocket>> accept_connection(NativeSocket listener,
                                                        SocketAddress* peer) {
  for (;;) {
    SocketAddress address;
    int length = sizeof address.storage;
    UniqueSocket socket(::accept(listener, address.get(), &length));
    if (socket.valid()) {
      address.length = length;
      if (peer != nullptr) *peer = address;
      // An accepted socket inherits the listener's non-blocking mode; set it anyway.
      if (Status made = set_nonblocking(socket.get(), true); !made) return made.error();
      SetHandleInformation(reinterpret_cast<HANDLE>(socket.get()), HANDLE_FLAG_INHERIT, 0);
      return std::optional<UniqueSocket>(std::move(socket));
    }
    const int error = WSAGetLastError();
    if (error == WSAEINTR || error == WSAECONNRESET || error == WSAECONNABORTED) continue;
    if (error == WSAEWOULDBLOCK) return std::optional<UniqueSocket>();
    return fail(socket_error_text(error));
  }
}

bool peer_hung_up(NativeSocket socket) {
  WSAPOLLFD entry{};
  entry.fd = socket;
  entry.events = POLLRDNORM;
  if (WSAPoll(&entry, 1, 0) != 1) return false;
  if (entry.revents & (POLLHUP | POLLERR)) return true;
  // Readable: an orderly close reads as 0 bytes, a reset as an error; data is left in place.
  char byte;
  const int got = ::recv(socket, &byte, 1, MSG_PEEK);
  return got == 0 || (got == SOCKET_ERROR && WSAGetLastError() != WSAEWOULDBLOCK);
}

void shutdown_socket(NativeSocket socket) { ::shutdown(socket, SD_BOTH); }

Expected<SocketAddress> local_address_of(NativeSocket socket) {
  SocketAddress bound;
  int length = sizeof bound.storage;
  if (getsockname(socket, bound.get(), &length) != 0)
    return fail("getsockname: " + socket_error_text(WSAGetLastError()));
  bound.length = length;
  return bound;
}

Expected<SocketAddress> peer_address_of(NativeSocket socket) {
  SocketAddress peer;
  int length = sizeof peer.storage;
  if (getpeername(socket, peer.get(), &length) != 0)
    return fail("getpeername: " + socket_error_text(WSAGetLastError()));
  peer.length = length;
  return peer;
}

void set_no_delay(NativeSocket socket) {
  BOOL one = TRUE;
  setsockopt(socket, IPPROTO_TCP, TCP_NODELAY, reinterpret_cast<const char*>(&one), sizeof one);
}

}  // namespace xttcp
