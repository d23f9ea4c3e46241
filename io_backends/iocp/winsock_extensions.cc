#include "io_backends/iocp/winsock_extensions.hh"

#include "io_backends/iocp/winsock_error.hh"

namespace xttcp::iocp {

namespace {

template <class Function>
Expected<Function> load(SOCKET socket, GUID guid, const char* name) {
  Function function;
  DWORD bytes = 0;
  if (WSAIoctl(socket, SIO_GET_EXTENSION_FUNCTION_POINTER, &guid, sizeof guid, &function.call,
               sizeof function.call, &bytes, nullptr, nullptr) != 0)
    return fail(last_wsa_failure(std::string("WSAIoctl(") + name + ")"));
  if (function.call == nullptr)
    return fail(std::string("WSAIoctl(") + name + "): no such function");
  return function;
}

}  // namespace

Expected<AcceptExFunction> load_accept_ex(SOCKET socket) {
  return load<AcceptExFunction>(socket, WSAID_ACCEPTEX, "AcceptEx");
}

Expected<ConnectExFunction> load_connect_ex(SOCKET socket) {
  return load<ConnectExFunction>(socket, WSAID_CONNECTEX, "ConnectEx");
}

}  // namespace xttcp::iocp
