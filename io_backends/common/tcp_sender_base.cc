#include "io_backends/common/tcp_sender_base.hh"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "engine/net/socket_setup.hh"

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
  auto sockets = connect_flows(context_, report_.notes);
  if (!sockets || !blocking) return sockets;
  // io_uring waits with its own poll; blocking mode keeps any kernel from answering EAGAIN.
  for (UniqueFd& fd : *sockets)
    if (Status mode = set_nonblocking(fd.get(), false); !mode) return mode.error();
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
