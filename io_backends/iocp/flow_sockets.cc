#include "io_backends/iocp/flow_sockets.hh"

#include <string>

#include "io_backends/iocp/winsock_error.hh"

namespace xttcp::iocp {

Expected<FlowSocket> open_tcp_flow(CompletionPort& port, const SocketAddress& remote,
                                   const SocketAddress& source, const SocketOptions& options,
                                   ConnectExFunction& connect_ex) {
  const std::string where = "iocp: connect to " + remote.to_string() + ": ";
  auto socket = open_overlapped_socket(remote.family(), SOCK_STREAM);
  if (!socket) return fail(where + socket.error().message);
  if (Status set = apply_socket_options(socket->get(), options, true); !set)
    return fail(where + set.error().message);
  if (Status bound = bind_socket(socket->get(), source); !bound)
    return fail(where + bound.error().message);
  auto skips = port.associate(socket->get(), 0);
  if (!skips) return fail(where + skips.error().message);
  if (connect_ex.call == nullptr) {
    auto loaded = load_connect_ex(socket->get());
    if (!loaded) return fail(where + loaded.error().message);
    connect_ex = *loaded;
  }
  return FlowSocket{std::move(*socket), *skips};
}

Expected<FlowSocket> open_udp_flow(CompletionPort& port, const SocketAddress& remote,
                                   const SocketAddress& source, const SocketOptions& options,
                                   bool unconnected) {
  const std::string where = "iocp: UDP to " + remote.to_string() + ": ";
  auto socket = open_overlapped_socket(remote.family(), SOCK_DGRAM);
  if (!socket) return fail(where + socket.error().message);
  if (Status set = apply_socket_options(socket->get(), options, false); !set)
    return fail(where + set.error().message);
  if (!source.is_any() || source.port() != 0) {
    if (Status bound = bind_socket(socket->get(), source); !bound)
      return fail(where + bound.error().message);
  }
  // A connected UDP socket names its peer once; -uc names it on every send instead.
  if (!unconnected && connect(socket->get(), remote.get(), remote.length) != 0)
    return fail(where + last_wsa_failure("connect"));
  auto skips = port.associate(socket->get(), 0);
  if (!skips) return fail(where + skips.error().message);
  return FlowSocket{std::move(*socket), *skips};
}

}  // namespace xttcp::iocp
