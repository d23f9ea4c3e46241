// The socket as the OS names it, and its errors, over base/socket_headers.hh (POSIX or Winsock 2).
// The only platform switch of engine/net's headers; implementations differ by file (*_linux.cc,
// *_windows.cc).
#pragma once

#include <string>

#include "base/socket_headers.hh"
#include "base/status.hh"

namespace xttcp {

// A socket as the OS names it: a file descriptor on Linux, a SOCKET handle on Windows.
#ifdef _WIN32
using NativeSocket = SOCKET;
inline constexpr NativeSocket invalid_socket = INVALID_SOCKET;
#else
using NativeSocket = int;
inline constexpr NativeSocket invalid_socket = -1;
#endif

// Makes the socket API usable by this process: WSAStartup on Windows (once, kept for the
// process's life), nothing to do on Linux. Every engine/net entry point that needs sockets calls
// it, so callers never have to. Error: "Winsock: <reason>".
Status start_sockets();

// Per platform (socket_os_linux.cc, socket_os_windows.cc): close(2) or closesocket().
void close_socket(NativeSocket socket);
// The error of the last failed socket call on this thread: errno or WSAGetLastError().
int last_socket_error();
// That error in words, starting lower-case like the rest of a message: "connection refused".
std::string socket_error_text(int error);

// What the portable code needs to know about a socket error.
enum class SocketError { would_block, in_progress, interrupted, refused, reset, other };
SocketError classify_socket_error(int error);

}  // namespace xttcp
