// Windows: socket set-up with Winsock (ioctlsocket FIONBIO, SO_EXCLUSIVEADDRUSE, select() for a
// connect's outcome: WSAPoll misses failed connects on some Windows versions).
#include "engine/net/socket_setup.hh"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "engine/net/socket_io.hh"

namespace xttcp {

std::optional<std::string> interface_of(const SocketAddress&) { return std::nullopt; }

Status defer_accept_until_data(NativeSocket) { return ok(); }

Status set_nonblocking(NativeSocket socket, bool on) {
  u_long mode = on ? 1 : 0;
  if (ioctlsocket(socket, FIONBIO, &mode) != 0)
    return fail("ioctlsocket(FIONBIO): " + socket_error_text(WSAGetLastError()));
  return ok();
}

Expected<UniqueSocket> open_tcp_socket(int family) {
  if (Status started = start_sockets(); !started) return started.error();
  // Overlapped-capable (what socket() gives), so the iocp data path can use the same sockets;
  // not inherited by child processes (close-on-exec).
  UniqueSocket socket(WSASocketW(family, SOCK_STREAM, IPPROTO_TCP, nullptr, 0,
                                 WSA_FLAG_OVERLAPPED | WSA_FLAG_NO_HANDLE_INHERIT));
  if (!socket.valid()) return fail(socket_error_text(WSAGetLastError()));
  if (Status made = set_nonblocking(socket.get(), true); !made) return made.error();
  return socket;
}

Expected<UniqueSocket> open_udp_socket(int family) {
  if (Status started = start_sockets(); !started) return started.error();
  UniqueSocket socket(WSASocketW(family, SOCK_DGRAM, IPPROTO_UDP, nullptr, 0,
                                 WSA_FLAG_OVERLAPPED | WSA_FLAG_NO_HANDLE_INHERIT));
  if (!socket.valid()) return fail(socket_error_text(WSAGetLastError()));
  if (Status made = set_nonblocking(socket.get(), true); !made) return made.error();
  return socket;
}

Expected<UniqueSocket> bind_udp(const SocketAddress& address) {
  auto socket = open_udp_socket(address.family());
  if (!socket) return socket;
  BOOL one = TRUE;  // SO_REUSEADDR: the connected streams share the port
  setsockopt(socket->get(), SOL_SOCKET, SO_REUSEADDR, reinterpret_cast<const char*>(&one),
             sizeof one);
  if (address.family() == AF_INET6) {
    DWORD v6only = 1;
    setsockopt(socket->get(), IPPROTO_IPV6, IPV6_V6ONLY, reinterpret_cast<const char*>(&v6only),
               sizeof v6only);
  }
  if (bind(socket->get(), address.get(), address.length) != 0)
    return fail(socket_error_text(WSAGetLastError()));
  return std::move(*socket);
}

uint32_t tcp_max_segment(NativeSocket) { return 0; }

Status connect_udp(NativeSocket socket, const SocketAddress& peer) {
  if (connect(socket, peer.get(), peer.length) != 0)
    return fail(socket_error_text(WSAGetLastError()));
  return ok();
}

Expected<UniqueSocket> listen_tcp(const SocketAddress& address, int backlog) {
  const std::string where = "port " + std::to_string(address.port());
  auto socket = open_tcp_socket(address.family());
  if (!socket) return fail(where + ": socket: " + socket.error().message);
  if (Status bound = bind_listener(socket->get(), address); !bound)
    return fail(where + " on " + address.host() + ": " + bound.error().message);
  if (listen(socket->get(), backlog) != 0)
    return fail(where + ": listen: " + socket_error_text(WSAGetLastError()));
  return std::move(*socket);
}

Status apply_connect_options(NativeSocket socket, const ConnectOptions& options) {
  // SO_MAX_PACING_RATE and SO_BINDTODEVICE have no Winsock equivalent; the source address
  // alone selects the interface (NTttcp's -nic does the same).
  if (options.socket_buffers > 0) {
    const int size = static_cast<int>(std::min<uint64_t>(options.socket_buffers, INT32_MAX));
    if (setsockopt(socket, SOL_SOCKET, SO_SNDBUF, reinterpret_cast<const char*>(&size),
                   sizeof size) != 0 ||
        setsockopt(socket, SOL_SOCKET, SO_RCVBUF, reinterpret_cast<const char*>(&size),
                   sizeof size) != 0)
      return fail("cannot set the socket buffers: " + socket_error_text(WSAGetLastError()));
  }
  if (options.source) {
    if (bind(socket, options.source->get(), options.source->length) != 0)
      return fail("cannot bind source " + options.source->to_string() + ": " +
                  socket_error_text(WSAGetLastError()));
  }
  return ok();
}

std::pair<int64_t, int64_t> socket_buffer_sizes(NativeSocket socket) {
  int send = 0, receive = 0;
  int length = sizeof send;
  if (getsockopt(socket, SOL_SOCKET, SO_SNDBUF, reinterpret_cast<char*>(&send), &length) != 0)
    send = 0;
  length = sizeof receive;
  if (getsockopt(socket, SOL_SOCKET, SO_RCVBUF, reinterpret_cast<char*>(&receive), &length) != 0)
    receive = 0;
  return {send, receive};
}

Expected<UniqueSocket> start_connect_tcp(const SocketAddress& remote,
                                         const ConnectOptions& options) {
  auto socket = open_tcp_socket(remote.family());
  if (!socket) return fail("socket: " + socket.error().message);
  if (options.no_delay) set_no_delay(socket->get());
  if (options.max_segment > 0) {
    constexpr int tcp_maxseg = 4;  // TCP_MAXSEG of ws2ipdef.h, which mingw-w64's headers lack
    const int mss = static_cast<int>(options.max_segment);
    if (setsockopt(socket->get(), IPPROTO_TCP, tcp_maxseg, reinterpret_cast<const char*>(&mss),
                   sizeof mss) != 0)
      return fail(fmt::format("cannot set the segment size to {} bytes: {}", mss,
                              socket_error_text(WSAGetLastError())));
  }
  if (Status applied = apply_connect_options(socket->get(), options); !applied)
    return applied.error();
  if (connect(socket->get(), remote.get(), remote.length) != 0) {
    const int error = WSAGetLastError();
    // A non-blocking connect under way reports WSAEWOULDBLOCK on Windows.
    if (error != WSAEWOULDBLOCK && error != WSAEINPROGRESS)
      return fail(remote.to_string() + ": " + socket_error_text(error));
  }
  return std::move(*socket);
}

Status finish_connect(NativeSocket socket, const SocketAddress& remote) {
  const int error = pending_socket_error(socket);
  if (error != 0) return fail(remote.to_string() + ": " + socket_error_text(error));
  return ok();
}

Expected<UniqueSocket> connect_tcp(const SocketAddress& remote, const ConnectOptions& options,
                                   std::chrono::milliseconds timeout) {
  auto socket = start_connect_tcp(remote, options);
  if (!socket) return socket.error();
  const int rc =
      wait_socket(socket->get(), WaitFor::write, std::chrono::steady_clock::now() + timeout);
  if (rc == 0)
    return fail(remote.to_string() + ": no answer within " +
                std::to_string(timeout.count() / 1000.0).substr(0, 4) + " s");
  if (rc < 0) return fail(remote.to_string() + ": select: " + socket_error_text(WSAGetLastError()));
  if (auto done = finish_connect(socket->get(), remote); !done) return done.error();
  return std::move(*socket);
}

Status bind_to_interface_of(NativeSocket, const SocketAddress&) { return ok(); }

Status bind_listener(NativeSocket socket, const SocketAddress& address) {
  BOOL one = TRUE;
  setsockopt(socket, SOL_SOCKET, SO_EXCLUSIVEADDRUSE, reinterpret_cast<const char*>(&one),
             sizeof one);
  if (address.family() == AF_INET6) {
    DWORD v6only = 1;
    setsockopt(socket, IPPROTO_IPV6, IPV6_V6ONLY, reinterpret_cast<const char*>(&v6only),
               sizeof v6only);
  }
  if (bind(socket, address.get(), address.length) != 0)
    return fail(socket_error_text(WSAGetLastError()));
  return ok();
}

Status bind_source_address(NativeSocket socket, const SocketAddress& source) {
  if (bind(socket, source.get(), source.length) != 0)
    return fail(socket_error_text(WSAGetLastError()));
  return ok();
}

int pending_socket_error(NativeSocket socket) {
  int error = 0;
  int length = sizeof error;
  if (getsockopt(socket, SOL_SOCKET, SO_ERROR, reinterpret_cast<char*>(&error), &length) != 0)
    error = WSAGetLastError();
  return error;
}

bool source_port_free(const SocketAddress& source, bool udp) {
  const SOCKET s =
      socket(source.family(), udp ? SOCK_DGRAM : SOCK_STREAM, udp ? IPPROTO_UDP : IPPROTO_TCP);
  if (s == INVALID_SOCKET) return false;
  const bool bound = bind(s, source.get(), source.length) == 0;
  closesocket(s);
  return bound;
}

std::pair<uint16_t, uint16_t> ephemeral_port_range() { return {49152, 65535}; }

}  // namespace xttcp
