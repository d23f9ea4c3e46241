#include "io_backends/common/udp_receiver_base.hh"

#include <fmt/format.h>

#include "io_backends/common/udp_socket.hh"

namespace xttcp {

Status UdpReceiverBase::open_sockets(bool blocking) {
  const TestSpec& spec = *context_.spec;
  auto opened = open_udp_receiver_sockets(context_, blocking, report_.notes, std::move(adopted_));
  if (!opened) return opened.error();
  gro_ = opened->gro;
  if (gro_) context_.udp_flows->gro = true;
  sockets_ = std::move(opened->sockets);
  // GRO trains must be read whole to see every header; otherwise the header is enough.
  skip_copy_ = spec.io.skip_rx_copy;
  iperf2_ = spec.workload.udp_payload == UdpPayload::iperf2;
  if (iperf2_) iperf2_server_.emplace(context_, sockets_.size());
  filter_ = filters_datagrams(context_);
  for (Socket& socket : sockets_) socket.header_only = skip_copy_ && !gro_;
  watch_coalescing_ = skip_copy_ && !spec.io.udp_receive_coalescing;
  return ok();
}

bool UdpReceiverBase::note_coalescing(Socket& socket, std::size_t length, std::size_t segment) {
  constexpr std::size_t large = 16384;
  constexpr uint32_t run = 256;
  if (segment < length || length < large) {
    socket.uncoalesced = 0;
    return false;
  }
  if (++socket.uncoalesced < run || !disable_udp_gro(socket.fd.get())) return false;
  socket.header_only = true;
  if (!switched_note_) {
    switched_note_ = true;
    report_.notes.push_back(fmt::format(
        "UDP: {}-byte datagrams arrive uncoalesced; GRO off and header-only reads from then on",
        length));
  }
  return true;
}

WorkerReport UdpReceiverBase::finish_report() {
  report_.connections = 0;
  for (const Socket& socket : sockets_) report_.connections += socket.accounting->flows();
  if (iperf2_server_) iperf2_server_->finish(report_);
  return report_;
}

}  // namespace xttcp
