// Winsock's extension functions (AcceptEx, ConnectEx), whose addresses come from the socket's
// provider through WSAIoctl(SIO_GET_EXTENSION_FUNCTION_POINTER) rather than from mswsock.lib.
#pragma once

#include "base/status.hh"
#include "engine/net/os_socket.hh"

// After winsock2.h (os_socket.hh): mswsock.h needs its types.
#include <mswsock.h>

namespace xttcp::iocp {

// Wrapped in structs: Expected<T> of a bare function pointer trips -Wshadow in status.hh.
struct AcceptExFunction {
  LPFN_ACCEPTEX call = nullptr;
};
struct ConnectExFunction {
  LPFN_CONNECTEX call = nullptr;
};

// Error: "WSAIoctl(AcceptEx): <reason>".
Expected<AcceptExFunction> load_accept_ex(SOCKET socket);
Expected<ConnectExFunction> load_connect_ex(SOCKET socket);

}  // namespace xttcp::iocp
