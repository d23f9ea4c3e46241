// Moving bytes and waiting on sockets for the control plane, the same on every OS: poll(2) on
// Linux, WSAPoll/select on Windows (socket_io_linux.cc, socket_io_windows.cc). Never used on a
// data path.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "base/status.hh"
#include "engine/net/address.hh"
#include "engine/net/unique_socket.hh"

namespace xttcp {

// One send or receive: bytes moved (> 0), 0 = the peer closed (receive only), < 0 = failed with
// `error` (last_socket_error(), see classify_socket_error).
struct SocketTransfer {
  int64_t bytes = 0;
  int error = 0;
};
// Never raises SIGPIPE.
SocketTransfer send_some(NativeSocket socket, const char* data, size_t size);
SocketTransfer receive_some(NativeSocket socket, char* into, size_t size);
// What has arrived, up to `size` bytes, without waiting even on a blocking socket.
SocketTransfer receive_now(NativeSocket socket, char* into, size_t size);
// One datagram (up to `size` bytes of it; the rest is dropped) and its source, without waiting.
SocketTransfer receive_datagram(NativeSocket socket, char* into, size_t size, SocketAddress& from);

enum class WaitFor { read, write };
// Waits until `socket` is readable or writable (a finished connect, failed or not, counts as
// writable) or `deadline` passes: > 0 ready, 0 timeout, < 0 error (last_socket_error()).
int wait_socket(NativeSocket socket, WaitFor what, std::chrono::steady_clock::time_point deadline);

// One entry of a multi-socket wait.
struct SocketPoll {
  NativeSocket socket = invalid_socket;
  bool want_read = true;
  bool want_write = false;
  bool readable = false;  // out: data, a connection to accept, or the peer closed
  bool writable = false;  // out
  bool hung_up = false;   // out: closed or failed (reading tells which)
};
// Waits up to `timeout_ms` for any entry: the number ready, 0 on timeout, < 0 on error.
int poll_sockets(std::vector<SocketPoll>& entries, int timeout_ms);

// Accepts one pending connection as a non-blocking, close-on-exec socket. nullopt when none is
// pending; the error otherwise ("too many open files").
Expected<std::optional<UniqueSocket>> accept_connection(NativeSocket listener, SocketAddress* peer);

// True when the peer has closed or reset the connection (nothing is read).
bool peer_hung_up(NativeSocket socket);

// Ends both directions, waking any thread blocked on the socket.
void shutdown_socket(NativeSocket socket);

// The address a socket is bound to.
Expected<SocketAddress> local_address_of(NativeSocket socket);
// The address a connected socket's peer has.
Expected<SocketAddress> peer_address_of(NativeSocket socket);

void set_no_delay(NativeSocket socket);

}  // namespace xttcp
