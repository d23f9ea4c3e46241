#include "io_backends/common/tcp_sender_base.hh"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "engine/net/socket_io.hh"
#include "engine/net/socket_setup.hh"
#include "io_backends/common/socket_buffers.hh"
#include "io_backends/common/tcp_tuning.hh"

namespace xttcp {

std::string zerocopy_fallback_note(const ZeroCopyStats& total) {
  const double percent = total.notifications == 0 ? 0.0
                                                  : 100.0 * static_cast<double>(total.copied) /
                                                        static_cast<double>(total.notifications);
  return fmt::format(
      "zero-copy: {:.2f} % of sends were copied by the kernel (loopback and veth always copy); "
      "switched to plain send",
      percent);
}

Expected<std::vector<UniqueFd>> TcpSenderBook::connect_all(bool blocking) {
  if (!adopted_.empty()) return adopt_all(blocking);
  auto sockets = connect_flows(context_, report_.notes);
  if (!sockets || !blocking) return sockets;
  // io_uring waits with its own poll; blocking mode keeps any kernel from answering EAGAIN.
  for (UniqueFd& fd : *sockets)
    if (Status mode = set_nonblocking(fd.get(), false); !mode) return mode.error();
  return sockets;
}

Expected<std::vector<UniqueFd>> TcpSenderBook::adopt_all(bool blocking) {
  std::vector<UniqueFd> sockets = std::move(adopted_);
  adopted_.clear();
  for (size_t i = 0; i < sockets.size(); ++i) {
    if (Status mode = set_nonblocking(sockets[i].get(), !blocking); !mode) return mode.error();
    if (Status sized = apply_socket_buffers(sockets[i].get(), *context_.spec); !sized)
      return sized.error();
    if (Status tuned = apply_tcp_tuning(sockets[i].get(), *context_.spec); !tuned)
      return tuned.error();
    auto peer = peer_address_of(sockets[i].get());
    record_opened(context_, sockets[i].get(), peer ? *peer : SocketAddress{}, false,
                  context_.plan->flows[i].slot);
  }
  return sockets;
}

void TcpSenderBook::connection_lost(TcpSendConnection& c, int err) {
  c.closed = true;
  if (context_.open_connections) --*context_.open_connections;
  if (err == EPIPE || err == ECONNRESET) {
    ++report_.closed_by_peer;
    return;
  }
  record_error(std::string("send: ") + std::strerror(err));
}

void TcpSenderBook::budget_sent(TcpSendConnection& c) {
  c.closed = true;
  if (::shutdown(c.fd.get(), SHUT_WR) != 0)
    record_error(std::string("shutdown: ") + std::strerror(errno));
  if (context_.on_flow_done) context_.on_flow_done();
}

}  // namespace xttcp
