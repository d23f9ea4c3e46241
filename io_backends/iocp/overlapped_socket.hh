// A Winsock socket opened for overlapped I/O, closed when its holder goes (RAII), and the few
// socket calls the iocp workers make on the control path: options, bind, names.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "base/status.hh"
#include "engine/net/address.hh"
#include "engine/spec.hh"

namespace xttcp::iocp {

class OverlappedSocket {
 public:
  OverlappedSocket() = default;
  explicit OverlappedSocket(SOCKET socket) : socket_(socket) {}
  OverlappedSocket(OverlappedSocket&& other) noexcept
      : socket_(std::exchange(other.socket_, INVALID_SOCKET)) {}
  OverlappedSocket& operator=(OverlappedSocket&& other) noexcept {
    if (this != &other) {
      reset();
      socket_ = std::exchange(other.socket_, INVALID_SOCKET);
    }
    return *this;
  }
  OverlappedSocket(const OverlappedSocket&) = delete;
  OverlappedSocket& operator=(const OverlappedSocket&) = delete;
  ~OverlappedSocket() { reset(); }

  SOCKET get() const { return socket_; }
  HANDLE handle() const { return reinterpret_cast<HANDLE>(socket_); }
  bool valid() const { return socket_ != INVALID_SOCKET; }
  // closesocket: graceful (no SO_LINGER set); pending operations complete as cancelled.
  void reset();

 private:
  SOCKET socket_ = INVALID_SOCKET;
};

// WSASocketW(family, type, 0, ..., WSA_FLAG_OVERLAPPED | WSA_FLAG_NO_HANDLE_INHERIT), after
// WSAStartup. Error: "socket: <reason>", its Winsock code in `*code` when asked.
Expected<OverlappedSocket> open_overlapped_socket(int family, int type, int* code = nullptr);

// What the spec asks of every data socket (NTttcp for Windows: -rb, -sb, -ndl; --no-delay).
struct SocketOptions {
  int64_t recv_buffer = -1;  // SO_RCVBUF; -1 = leave the OS default (autotuning); 0 allowed
  int64_t send_buffer = -1;  // SO_SNDBUF; -1 = OS default; 0 = no Winsock send buffering
  bool no_delay = false;     // TCP_NODELAY (TCP only)
};
SocketOptions socket_options_of(const TestSpec& spec);

// Sets the options; `tcp` decides whether TCP_NODELAY applies. Error names the option, e.g.
// "SO_RCVBUF 0 (-rb): invalid argument (WSAEINVAL)".
Status apply_socket_options(SOCKET socket, const SocketOptions& options, bool tcp);

// Error: "bind <address>: <reason>".
Status bind_socket(SOCKET socket, const SocketAddress& address);

// "127.0.0.1:5001", or "" when the socket has no such name.
std::string local_name(SOCKET socket);
std::string peer_name(SOCKET socket);

}  // namespace xttcp::iocp
