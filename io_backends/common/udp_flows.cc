#include "io_backends/common/udp_flows.hh"

#include <sys/socket.h>

#include <cerrno>

#include "engine/count_mode.hh"
#include "engine/net/socket_setup.hh"
#include "io_backends/common/socket_buffers.hh"
#include "io_backends/common/udp_socket.hh"

namespace xttcp {

Expected<UdpSenderSockets> open_udp_sender_flows(const WorkerContext& context, bool blocking,
                                                 std::vector<std::string>& notes,
                                                 std::vector<UniqueFd> adopted) {
  const TestSpec& spec = *context.spec;
  ConnectOptions options;
  if (spec.workload.fq_rate_limit_bps > 0)
    options.max_pacing_rate_bytes = spec.workload.fq_rate_limit_bps / spec.sender_connections() / 8;
  options.bind_to_device = !spec.layout.source_address.empty();
  const bool unconnected = spec.io.udp_unconnected;  // -uc
  if (unconnected)
    notes.push_back(
        "-uc: unconnected UDP sockets, every datagram addressed (sendto/sendmmsg); "
        "no GSO");
  UdpSenderSockets out;
  for (std::size_t k = 0; k < context.plan->flows.size(); ++k) {
    const FlowPlan& plan = context.plan->flows[k];
    SocketAddress remote = flow_address(context, plan);
    options.source.reset();
    if (!spec.layout.source_address.empty() || plan.source_port != 0) {
      SocketAddress source = context.local;
      source.set_port(plan.source_port);
      options.source = source;
    }
    Expected<UniqueFd> fd = k < adopted.size() ? Expected<UniqueFd>(std::move(adopted[k]))
                                               : open_udp_sender(remote, options, !unconnected);
    if (!fd) return fail("UDP to " + remote.to_string() + ": " + fd.error().message);
    if (k < adopted.size()) {  // connected by the control plane: only the pacing is ours to set
      if (auto peer = peer_address_of(fd->get())) remote = *peer;
      ConnectOptions pacing;
      pacing.max_pacing_rate_bytes = options.max_pacing_rate_bytes;
      if (Status paced = apply_connect_options(fd->get(), pacing); !paced) return paced.error();
    }
    if (Status made = set_nonblocking(fd->get(), !blocking); !made) return made.error();
    if (Status sized = apply_socket_buffers(fd->get(), spec); !sized) return sized.error();
    if (out.flows.empty())
      if (std::string note = socket_buffer_note(fd->get(), spec); !note.empty())
        notes.push_back(note);
    // choose_gso reads the path MTU of a connected socket: -uc keeps gso_segments 0.
    if (!unconnected && out.flows.empty()) {
      std::string note;
      out.gso_segments =
          choose_gso(fd->get(), remote, spec.workload.send_buffer, spec.io.udp_gso, note);
      if (!note.empty()) notes.push_back(note);
    } else if (out.gso_segments > 0 && !enable_udp_gso(fd->get(), spec.workload.send_buffer)) {
      return fail("UDP_SEGMENT worked on one socket and not on the next");
    }
    record_opened(context, fd->get(), remote, true, plan.slot);
    UdpSenderFlow flow;
    flow.fd = std::move(*fd);
    flow.remote = remote;
    flow.connected = !unconnected;
    flow.slot = plan.slot;
    flow.flow_id = context.udp_flow_base | plan.slot;
    flow.token = context.udp_flow_token;
    flow.counters = &context.udp_flows->add(plan.slot, flow.flow_id);
    out.flows.push_back(std::move(flow));
  }
  return out;
}

int send_due_end_marker(UdpSenderFlow& flow, uint64_t sent, bool compat_data, uint64_t now_ns) {
  if (!flow.end.due(now_ns)) return 0;
  unsigned char marker[udp::end_marker_size];
  udp::encode_end_marker({flow.flow_id, sent, compat_data, now_ns, flow.token}, marker);
  const int flags = MSG_DONTWAIT | MSG_NOSIGNAL;
  const ssize_t n = flow.connected ? ::send(flow.fd.get(), marker, sizeof marker, flags)
                                   : ::sendto(flow.fd.get(), marker, sizeof marker, flags,
                                              flow.remote.get(), flow.remote.length);
  if (n >= 0 || errno == ECONNREFUSED) {
    flow.end.marker_sent();
    return 0;
  }
  if (errno == EAGAIN || errno == ENOBUFS || errno == EINTR) return EAGAIN;
  return errno;
}

udp::DatagramLayout datagram_layout(const TestSpec& spec) {
  switch (spec.workload.udp_payload) {
    case UdpPayload::iperf2: return udp::DatagramLayout::iperf2;
    case UdpPayload::iperf3:
      return spec.iperf3.udp_counters_64bit ? udp::DatagramLayout::iperf3_wide
                                            : udp::DatagramLayout::iperf3;
    default: return udp::DatagramLayout::native;
  }
}

Expected<UdpReceiverSockets> open_udp_receiver_sockets(const WorkerContext& context, bool blocking,
                                                       std::vector<std::string>& notes,
                                                       std::vector<UniqueFd> adopted) {
  const TestSpec& spec = *context.spec;
  UdpReceiverSockets out;
  bool refused = false;
  // --one-port: every worker's socket on the one port (the flows are told apart by their ids).
  const UdpPort port = spec.layout.one_port ? UdpPort::shared : UdpPort::own;
  for (std::size_t k = 0; k < context.plan->flows.size(); ++k) {
    const FlowPlan& flow = context.plan->flows[k];
    Expected<UniqueFd> fd = k < adopted.size() ? Expected<UniqueFd>(std::move(adopted[k]))
                                               : open_udp_receiver(flow_address(context, flow),
                                                                   UdpReceiveTimes::kernel, port);
    if (!fd) return fd.error();
    if (Status made = set_nonblocking(fd->get(), !blocking); !made) return made.error();
    if (Status sized = apply_socket_buffers(fd->get(), spec); !sized) return sized.error();
    if (out.sockets.empty())
      if (std::string note = socket_buffer_note(fd->get(), spec); !note.empty())
        notes.push_back(note);
    if (spec.io.udp_gro) (enable_udp_gro(fd->get()) ? out.gro : refused) = true;
    UdpReceiverSocket socket;
    socket.fd = std::move(*fd);
    socket.slot = flow.slot;
    socket.accounting =
        std::make_unique<UdpSocketAccounting>(*context.udp_flows, flow.slot, &context.on_flow_done,
                                              datagram_layout(spec), &context.on_accept);
    socket.accounting->end_compat_after(compat_datagrams_per_flow(spec));
    out.sockets.push_back(std::move(socket));
  }
  if (refused && spec.io.udp_receive_coalescing)
    return fail("-uro: the kernel refused UDP_GRO (Linux 5.0 and later have it; drop -uro)");
  if (refused) {
    out.gro = false;
    notes.push_back("UDP: the kernel refused UDP_GRO; one datagram per buffer");
  }
  return out;
}

}  // namespace xttcp
