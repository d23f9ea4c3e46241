#include "io_backends/common/rr_sockets.hh"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "engine/net/socket_setup.hh"
#include "io_backends/common/connect_flows.hh"
#include "io_backends/common/socket_buffers.hh"
#include "io_backends/common/tcp_tuning.hh"
#include "io_backends/common/udp_socket.hh"

namespace xttcp {

namespace {
constexpr int listen_backlog = 1024;
}

Expected<std::vector<UniqueFd>> open_rr_udp_requesters(const WorkerContext& context,
                                                       std::vector<std::string>& notes) {
  const TestSpec& spec = *context.spec;
  ConnectOptions options;
  options.bind_to_device = !spec.layout.source_address.empty();
  std::vector<UniqueFd> out;
  for (const FlowPlan& flow : context.plan->flows) {
    const SocketAddress remote = flow_address(context, flow);
    options.source.reset();
    if (!spec.layout.source_address.empty() || flow.source_port != 0) {
      SocketAddress source = context.local;
      source.set_port(flow.source_port);
      options.source = source;
    }
    auto fd = open_udp_sender(remote, options, true);
    if (!fd) return fail("UDP to " + remote.to_string() + ": " + fd.error().message);
    if (Status sized = apply_socket_buffers(fd->get(), spec); !sized) return sized.error();
    if (Status polled = apply_busy_poll(fd->get(), spec); !polled) return polled.error();
    if (out.empty() && spec.io.busy_poll_us > 0) notes.push_back(tcp_tuning_note(fd->get(), spec));
    record_opened(context, fd->get(), remote, true, flow.slot);
    out.push_back(std::move(*fd));
  }
  return out;
}

Expected<std::vector<UniqueFd>> open_rr_udp_responders(const WorkerContext& context) {
  std::vector<UniqueFd> out;
  for (const FlowPlan& flow : context.plan->flows) {
    auto fd = open_udp_receiver(flow_address(context, flow), UdpReceiveTimes::none);
    if (!fd) return fd.error();
    if (Status sized = apply_socket_buffers(fd->get(), *context.spec); !sized) return sized.error();
    if (Status polled = apply_busy_poll(fd->get(), *context.spec); !polled) return polled.error();
    out.push_back(std::move(*fd));
  }
  return out;
}

Expected<std::vector<UniqueFd>> open_rr_tcp_listeners(const WorkerContext& context) {
  std::vector<UniqueFd> out;
  for (const FlowPlan& flow : context.plan->flows) {
    auto fd = listen_tcp(flow_address(context, flow), listen_backlog);
    if (!fd) return fd.error();
    if (defers_accept(context))  // --auth-key: the preamble is there when the accept returns
      if (Status deferred = defer_accept_until_data(fd->get()); !deferred) return deferred.error();
    if (Status sized = apply_socket_buffers(fd->get(), *context.spec); !sized) return sized.error();
    if (Status tuned = apply_tcp_tuning(fd->get(), *context.spec); !tuned) return tuned.error();
    out.push_back(std::move(*fd));
  }
  return out;
}

Expected<std::vector<UniqueFd>> open_rr_requesters(const WorkerContext& context, bool udp,
                                                   std::vector<std::string>& notes) {
  if (udp) return open_rr_udp_requesters(context, notes);
  return connect_flows(context, notes);
}

}  // namespace xttcp
