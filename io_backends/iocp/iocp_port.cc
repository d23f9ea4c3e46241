#include "io_backends/iocp/iocp_port.hh"

#include "io_backends/iocp/winsock_error.hh"

namespace xttcp::iocp {

Expected<CompletionPort> CompletionPort::create() {
  CompletionPort port;
  port.port_ = CreateIoCompletionPort(INVALID_HANDLE_VALUE, nullptr, 0, 1);
  if (port.port_ == nullptr)
    return fail(wsa_failure("CreateIoCompletionPort", static_cast<int>(GetLastError())));
  return port;
}

void CompletionPort::close() {
  if (port_ != nullptr) CloseHandle(port_);
  port_ = nullptr;
}

Expected<bool> CompletionPort::associate(SOCKET socket, ULONG_PTR key) {
  const HANDLE handle = reinterpret_cast<HANDLE>(socket);
  if (CreateIoCompletionPort(handle, port_, key, 0) != port_)
    return fail(wsa_failure("CreateIoCompletionPort (associate a socket)",
                            static_cast<int>(GetLastError())));
  return SetFileCompletionNotificationModes(
             handle, FILE_SKIP_COMPLETION_PORT_ON_SUCCESS | FILE_SKIP_SET_EVENT_ON_HANDLE) != 0;
}

ULONG CompletionPort::wait(OVERLAPPED_ENTRY* entries, ULONG capacity, DWORD timeout_ms) {
  ULONG removed = 0;
  if (!GetQueuedCompletionStatusEx(port_, entries, capacity, &removed, timeout_ms, FALSE))
    return 0;  // WAIT_TIMEOUT; the port is ours and open, so nothing else can fail here
  return removed;
}

}  // namespace xttcp::iocp
