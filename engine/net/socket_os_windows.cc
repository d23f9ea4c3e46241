// Windows: sockets are SOCKET handles and errors are Winsock codes, in the words Linux uses for
// the same condition so messages read alike on both.
#include <string>

#include "engine/net/os_socket.hh"

namespace xttcp {

void close_socket(NativeSocket socket) { ::closesocket(socket); }

int last_socket_error() { return WSAGetLastError(); }

std::string socket_error_text(int error) {
  switch (error) {
    case WSAECONNREFUSED: return "connection refused";
    case WSAECONNRESET: return "connection reset by peer";
    case WSAECONNABORTED: return "software caused connection abort";
    case WSAEADDRINUSE: return "address already in use";
    case WSAEADDRNOTAVAIL: return "cannot assign requested address";
    case WSAETIMEDOUT: return "connection timed out";
    case WSAEHOSTUNREACH: return "no route to host";
    case WSAENETUNREACH: return "network is unreachable";
    case WSAENETDOWN: return "network is down";
    case WSAEACCES: return "permission denied";
    case WSAEAFNOSUPPORT: return "address family not supported by protocol";
    case WSAEINVAL: return "invalid argument";
    case WSAENOTCONN: return "transport endpoint is not connected";
    case WSAESHUTDOWN: return "cannot send after transport endpoint shutdown";
    case WSAEMFILE: return "too many open files";
    case WSAENOBUFS: return "no buffer space available";
    case WSAEWOULDBLOCK: return "resource temporarily unavailable";
    case WSANOTINITIALISED: return "Winsock is not started";
    default: return "Winsock error " + std::to_string(error);
  }
}

SocketError classify_socket_error(int error) {
  switch (error) {
    case WSAEWOULDBLOCK: return SocketError::would_block;
    case WSAEINPROGRESS: return SocketError::in_progress;
    case WSAEINTR: return SocketError::interrupted;
    case WSAECONNREFUSED:
    case ERROR_CONNECTION_REFUSED: return SocketError::refused;  // a ConnectEx completion's code
    case WSAECONNRESET:
    case WSAECONNABORTED:
    case WSAESHUTDOWN: return SocketError::reset;
    default: return SocketError::other;
  }
}

}  // namespace xttcp
