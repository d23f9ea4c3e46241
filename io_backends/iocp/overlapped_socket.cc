#include "io_backends/iocp/overlapped_socket.hh"

#include <limits>

#include "io_backends/iocp/winsock_error.hh"

namespace xttcp::iocp {

void OverlappedSocket::reset() {
  if (socket_ == INVALID_SOCKET) return;
  closesocket(socket_);
  socket_ = INVALID_SOCKET;
}

Expected<OverlappedSocket> open_overlapped_socket(int family, int type, int* code) {
  if (Status started = start_sockets(); !started) return started.error();
  const SOCKET socket =
      WSASocketW(family, type, 0, nullptr, 0, WSA_FLAG_OVERLAPPED | WSA_FLAG_NO_HANDLE_INHERIT);
  if (socket == INVALID_SOCKET) {
    const int error = WSAGetLastError();
    if (code != nullptr) *code = error;
    return fail(wsa_failure("socket", error));
  }
  return OverlappedSocket(socket);
}

SocketOptions socket_options_of(const TestSpec& spec) {
  SocketOptions options;
  options.recv_buffer = spec.io.socket_recv_buffer;
  options.send_buffer = spec.io.socket_send_buffer;
  options.no_delay = spec.io.no_delay;
  return options;
}

namespace {

Status set_int(SOCKET socket, int level, int name, int value, const std::string& what) {
  if (setsockopt(socket, level, name, reinterpret_cast<const char*>(&value), sizeof value) != 0)
    return fail(last_wsa_failure(what));
  return ok();
}

Status set_buffer(SOCKET socket, int name, int64_t bytes, const char* option, const char* flag) {
  if (bytes < 0) return ok();
  const std::string what = std::string(option) + " " + std::to_string(bytes) + " (" + flag + ")";
  if (bytes > std::numeric_limits<int>::max()) return fail(what + ": larger than 2^31 - 1");
  return set_int(socket, SOL_SOCKET, name, static_cast<int>(bytes), what);
}

std::string name_of(const sockaddr_storage& storage, int length) {
  if (length <= 0) return "";
  SocketAddress address;
  address.storage = storage;
  address.length = length;
  return address.to_string();
}

}  // namespace

Status apply_socket_options(SOCKET socket, const SocketOptions& options, bool tcp) {
  if (Status set = set_buffer(socket, SO_RCVBUF, options.recv_buffer, "SO_RCVBUF", "-rb"); !set)
    return set;
  if (Status set = set_buffer(socket, SO_SNDBUF, options.send_buffer, "SO_SNDBUF", "-sb"); !set)
    return set;
  if (tcp && options.no_delay)
    return set_int(socket, IPPROTO_TCP, TCP_NODELAY, 1, "TCP_NODELAY (-ndl, --no-delay)");
  return ok();
}

Status bind_socket(SOCKET socket, const SocketAddress& address) {
  if (bind(socket, address.get(), address.length) != 0)
    return fail(last_wsa_failure("bind " + address.to_string()));
  return ok();
}

std::string local_name(SOCKET socket) {
  sockaddr_storage storage{};
  int length = sizeof storage;
  if (getsockname(socket, reinterpret_cast<sockaddr*>(&storage), &length) != 0) return "";
  return name_of(storage, length);
}

std::string peer_name(SOCKET socket) {
  sockaddr_storage storage{};
  int length = sizeof storage;
  if (getpeername(socket, reinterpret_cast<sockaddr*>(&storage), &length) != 0) return "";
  return name_of(storage, length);
}

}  // namespace xttcp::iocp
