#include "io_backends/iocp/winsock_error.hh"

#include "engine/net/os_socket.hh"

namespace xttcp::iocp {

namespace {

struct KnownCode {
  int code;
  const char* text;
  const char* name;
};

// The codes a socket data path meets, in the words of their POSIX counterparts.
constexpr KnownCode known_codes[] = {
    {WSAEADDRINUSE, "address in use", "WSAEADDRINUSE"},
    {WSAEADDRNOTAVAIL, "address not available on this host", "WSAEADDRNOTAVAIL"},
    {WSAEAFNOSUPPORT, "address family not supported", "WSAEAFNOSUPPORT"},
    {WSAEPROTONOSUPPORT, "protocol not supported", "WSAEPROTONOSUPPORT"},
    {WSAECONNREFUSED, "connection refused", "WSAECONNREFUSED"},
    {WSAECONNRESET, "connection reset by peer", "WSAECONNRESET"},
    {WSAECONNABORTED, "connection aborted", "WSAECONNABORTED"},
    {WSAENETRESET, "connection dropped by a network reset", "WSAENETRESET"},
    {WSAETIMEDOUT, "timed out", "WSAETIMEDOUT"},
    {WSAENETDOWN, "network is down", "WSAENETDOWN"},
    {WSAENETUNREACH, "network unreachable", "WSAENETUNREACH"},
    {WSAEHOSTUNREACH, "host unreachable", "WSAEHOSTUNREACH"},
    {WSAEACCES, "permission denied", "WSAEACCES"},
    {WSAEINVAL, "invalid argument", "WSAEINVAL"},
    {WSAEFAULT, "bad address", "WSAEFAULT"},
    {WSAENOBUFS, "no buffer space available", "WSAENOBUFS"},
    {WSAEMFILE, "too many open sockets", "WSAEMFILE"},
    {WSAEMSGSIZE, "message too long", "WSAEMSGSIZE"},
    {WSAENOTSOCK, "not a socket", "WSAENOTSOCK"},
    {WSAENOTCONN, "not connected", "WSAENOTCONN"},
    {WSAEISCONN, "already connected", "WSAEISCONN"},
    {WSAESHUTDOWN, "socket already shut down", "WSAESHUTDOWN"},
    {WSAEWOULDBLOCK, "would block", "WSAEWOULDBLOCK"},
    {WSAEOPNOTSUPP, "operation not supported", "WSAEOPNOTSUPP"},
    {WSANOTINITIALISED, "Winsock not started", "WSANOTINITIALISED"},
    {WSA_IO_PENDING, "operation pending", "WSA_IO_PENDING"},
    {WSA_OPERATION_ABORTED, "operation aborted", "WSA_OPERATION_ABORTED"},
    {ERROR_NETNAME_DELETED, "connection closed", "ERROR_NETNAME_DELETED"},
    {ERROR_CONNECTION_ABORTED, "connection aborted locally", "ERROR_CONNECTION_ABORTED"},
    {wine_closed_while_pending, "socket closed while the operation was pending (Wine)",
     "error 676"},
};

std::string system_text(int code) {
  char* text = nullptr;
  const DWORD length = FormatMessageA(
      FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS,
      nullptr, static_cast<DWORD>(code), 0, reinterpret_cast<char*>(&text), 0, nullptr);
  std::string out;
  if (length > 0 && text != nullptr) out.assign(text, length);
  if (text != nullptr) LocalFree(text);
  // One line: FormatMessage ends its text with ".\r\n".
  while (!out.empty() &&
         (out.back() == '\n' || out.back() == '\r' || out.back() == '.' || out.back() == ' '))
    out.pop_back();
  return out;
}

}  // namespace

std::string wsa_error_text(int code) {
  for (const KnownCode& known : known_codes)
    if (known.code == code) return std::string(known.text) + " (" + known.name + ")";
  std::string text = system_text(code);
  if (text.empty()) return "error " + std::to_string(code);
  return text + " (error " + std::to_string(code) + ")";
}

std::string wsa_failure(std::string_view what, int code) {
  return std::string(what) + ": " + wsa_error_text(code);
}

std::string last_wsa_failure(std::string_view what) { return wsa_failure(what, WSAGetLastError()); }

bool is_cancellation(int code) {
  return code == WSA_OPERATION_ABORTED || code == wine_closed_while_pending ||
         code == WSAENOTSOCK || code == WSAEINTR;
}

bool is_peer_gone(int code) {
  return code == WSAECONNRESET || code == WSAECONNABORTED || code == WSAENETRESET ||
         code == WSAESHUTDOWN || code == ERROR_NETNAME_DELETED || code == WSAEDISCON;
}

bool accept_shortage(int code) { return code == WSAEMFILE || code == WSAENOBUFS; }

bool accept_failure_ends_listener(int code) {
  return code == WSAEINVAL || code == WSAENOTSOCK || code == WSAEOPNOTSUPP;
}

}  // namespace xttcp::iocp
