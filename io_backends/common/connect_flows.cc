#include "io_backends/common/connect_flows.hh"

#include <sys/epoll.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "engine/net/socket_setup.hh"
#include "io_backends/common/socket_buffers.hh"

namespace xttcp {

Expected<std::vector<UniqueFd>> connect_flows(const WorkerContext& context,
                                              std::vector<std::string>& notes) {
  const TestSpec& spec = *context.spec;
  const std::vector<FlowPlan>& flows = context.plan->flows;
  UniqueFd epoll(epoll_create1(EPOLL_CLOEXEC));
  if (!epoll.valid()) return fail(std::string("epoll_create1: ") + std::strerror(errno));

  ConnectOptions options;
  options.no_delay = spec.no_delay;
  if (spec.fq_rate_limit_bps > 0)
    options.max_pacing_rate_bytes = spec.fq_rate_limit_bps / spec.sender_connections() / 8;
  options.bind_to_device = !spec.source_address.empty();

  auto remote_of = [&](size_t i) { return flow_address(context, flows[i]); };

  std::vector<UniqueFd> sockets;
  sockets.reserve(flows.size());
  for (size_t i = 0; i < flows.size(); ++i) {
    options.source.reset();
    if (!spec.source_address.empty() || flows[i].source_port != 0) {
      SocketAddress source = context.local;
      source.set_port(flows[i].source_port);
      options.source = source;
    }
    auto fd = start_connect_tcp(remote_of(i), options);
    if (!fd) return fail("cannot connect to " + remote_of(i).to_string() + ": " + fd.error().message);
    // Set once the connect has started: this side only sends, its receive window is moot.
    if (Status sized = apply_socket_buffers(fd->get(), spec); !sized) return sized.error();
    if (i == 0)
      if (std::string note = socket_buffer_note(fd->get(), spec); !note.empty()) notes.push_back(note);
    epoll_event event{};
    event.events = EPOLLOUT | EPOLLONESHOT;
    event.data.u64 = i;
    if (epoll_ctl(epoll.get(), EPOLL_CTL_ADD, fd->get(), &event) != 0)
      return fail(std::string("epoll_ctl: ") + std::strerror(errno));
    sockets.push_back(std::move(*fd));
  }

  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(spec.connect_timeout_s);
  size_t pending = sockets.size();
  std::vector<bool> connected(sockets.size(), false);
  epoll_event events[64];
  while (pending > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      size_t first = 0;  // name the first one still waiting (flows may go to several hosts)
      while (connected[first]) ++first;
      return fail(std::to_string(pending) + " of " + std::to_string(sockets.size()) +
                  " connections to " + remote_of(first).host() + " (first: port " +
                  std::to_string(flows[first].port) + ") not established within " +
                  std::to_string(spec.connect_timeout_s) + " s (--connect-timeout)");
    }
    const int n = epoll_wait(epoll.get(), events, 64, static_cast<int>(left.count()));
    if (n < 0 && errno != EINTR) return fail(std::string("epoll_wait: ") + std::strerror(errno));
    for (int i = 0; i < n; ++i) {
      const size_t index = events[i].data.u64;
      if (auto done = finish_connect(sockets[index].get(), remote_of(index)); !done)
        return fail("cannot connect to " + done.error().message);
      connected[index] = true;
      --pending;
    }
  }
  return sockets;
}

}  // namespace xttcp
