// Owns one socket and closes it exactly once. On Linux a socket is a file descriptor, so this is
// UniqueFd (the Linux backends hold their sockets in it); on Windows it owns a SOCKET and closes
// it with closesocket().
#pragma once

#include <utility>

#include "engine/net/os_socket.hh"

#ifndef _WIN32
#include "base/unique_fd.hh"
#endif

namespace xttcp {

#ifdef _WIN32
class UniqueSocket {
 public:
  UniqueSocket() = default;
  explicit UniqueSocket(NativeSocket socket) : socket_(socket) {}
  UniqueSocket(UniqueSocket&& other) noexcept
      : socket_(std::exchange(other.socket_, invalid_socket)) {}
  UniqueSocket& operator=(UniqueSocket&& other) noexcept {
    if (this != &other) reset(std::exchange(other.socket_, invalid_socket));
    return *this;
  }
  UniqueSocket(const UniqueSocket&) = delete;
  UniqueSocket& operator=(const UniqueSocket&) = delete;
  ~UniqueSocket() { reset(); }

  NativeSocket get() const { return socket_; }
  bool valid() const { return socket_ != invalid_socket; }
  NativeSocket release() { return std::exchange(socket_, invalid_socket); }
  void reset(NativeSocket socket = invalid_socket) {
    if (socket_ != invalid_socket) close_socket(socket_);
    socket_ = socket;
  }

 private:
  NativeSocket socket_ = invalid_socket;
};
#else
using UniqueSocket = UniqueFd;
#endif

}  // namespace xttcp
