// Windows: a non-blocking UDP socket on 127.0.0.1 connected to its own address; notify() sends
// it one byte, drain() reads every byte queued. A full queue already holds a wake.
#include "engine/net/wake_signal.hh"

#include "engine/net/socket_io.hh"
#include "engine/net/socket_setup.hh"

namespace xttcp {

Expected<WakeSignal> WakeSignal::create() {
  if (Status started = start_sockets(); !started) return started.error();
  UniqueSocket socket(
      WSASocketW(AF_INET, SOCK_DGRAM, IPPROTO_UDP, nullptr, 0, WSA_FLAG_NO_HANDLE_INHERIT));
  if (!socket.valid()) return fail("wake socket: " + socket_error_text(WSAGetLastError()));
  sockaddr_in loopback{};
  loopback.sin_family = AF_INET;
  loopback.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(socket.get(), reinterpret_cast<const sockaddr*>(&loopback), sizeof loopback) != 0)
    return fail("wake socket: bind 127.0.0.1: " + socket_error_text(WSAGetLastError()));
  auto self = local_address_of(socket.get());
  if (!self) return fail("wake socket: " + self.error().message);
  if (connect(socket.get(), self->get(), self->length) != 0)
    return fail("wake socket: connect: " + socket_error_text(WSAGetLastError()));
  if (Status made = set_nonblocking(socket.get(), true); !made)
    return fail("wake socket: " + made.error().message);
  return WakeSignal(std::move(socket));
}

void WakeSignal::notify() {
  const char byte = 1;
  send_some(handle_.get(), &byte, 1);
}

void WakeSignal::drain() {
  char bytes[64];
  while (receive_some(handle_.get(), bytes, sizeof bytes).bytes > 0) {
  }
}

}  // namespace xttcp
