#include "io_backends/common/connect_flows.hh"

#include <sys/epoll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "engine/net/os_socket.hh"
#include "engine/net/socket_setup.hh"
#include "io_backends/common/iperf2_stream_start.hh"
#include "io_backends/common/socket_buffers.hh"
#include "io_backends/common/tcp_tuning.hh"

namespace xttcp {

namespace {

using Clock = std::chrono::steady_clock;

// Where one flow's connect stands. A refused connect waits out the retry pause with no socket.
struct ConnectSlot {
  enum class State { connecting, refused, connected } state = State::connecting;
  Clock::time_point retry_at{};
};

}  // namespace

Expected<std::vector<UniqueFd>> connect_flows(const WorkerContext& context,
                                              std::vector<std::string>& notes) {
  const TestSpec& spec = *context.spec;
  const std::vector<FlowPlan>& flows = context.plan->flows;
  UniqueFd epoll(epoll_create1(EPOLL_CLOEXEC));
  if (!epoll.valid()) return fail(std::string("epoll_create1: ") + std::strerror(errno));

  ConnectOptions options;
  options.no_delay = spec.io.no_delay;
  if (spec.workload.fq_rate_limit_bps > 0)
    options.max_pacing_rate_bytes = spec.workload.fq_rate_limit_bps / spec.sender_connections() / 8;
  options.bind_to_device = !spec.layout.source_address.empty();
  options.port_at_connect = true;
  // --source-addresses: flow slot s binds to the (s mod n)-th, resolved once here.
  std::vector<SocketAddress> sources;
  for (const std::string& name : spec.layout.source_addresses) {
    auto address = resolve(name, 0, spec.layout.ipv6);
    if (!address) return fail("--source-addresses: " + address.error().message);
    sources.push_back(*address);
  }

  auto remote_of = [&](size_t i) { return flow_address(context, flows[i]); };

  std::vector<UniqueFd> sockets(flows.size());
  std::vector<ConnectSlot> slots(flows.size());
  auto start = [&](size_t i) -> Status {
    options.source.reset();
    if (!spec.layout.source_address.empty() || flows[i].source_port != 0) {
      SocketAddress source =
          sources.empty() ? context.local : sources[flows[i].slot % sources.size()];
      source.set_port(flows[i].source_port);
      options.source = source;
    }
    auto fd = start_connect_tcp(remote_of(i), options);
    if (!fd)
      return fail("cannot connect to " + remote_of(i).to_string() + ": " + fd.error().message);
    // Set once the connect has started: this side only sends, its receive window is moot.
    if (Status sized = apply_socket_buffers(fd->get(), spec); !sized) return sized.error();
    if (Status tuned = apply_tcp_tuning(fd->get(), spec); !tuned) return tuned.error();
    if (i == 0 && notes.empty())
      for (std::string note :
           {socket_buffer_note(fd->get(), spec), tcp_tuning_note(fd->get(), spec)})
        if (!note.empty()) notes.push_back(note);
    epoll_event event{};
    event.events = EPOLLOUT | EPOLLONESHOT;
    event.data.u64 = i;
    if (epoll_ctl(epoll.get(), EPOLL_CTL_ADD, fd->get(), &event) != 0)
      return fail(std::string("epoll_ctl: ") + std::strerror(errno));
    sockets[i] = std::move(*fd);
    slots[i].state = ConnectSlot::State::connecting;
    return ok();
  };
  for (size_t i = 0; i < flows.size(); ++i)
    if (Status started = start(i); !started) return started.error();

  // A refused connect means the receiver is not listening yet (started after this sender, or
  // -N/-ns with no sync to order the two): try again every 100 ms until --connect-timeout, as
  // NTttcp does (100 tries, 100 ms apart).
  const auto deadline = Clock::now() + std::chrono::seconds(spec.control.connect_timeout_s);
  size_t pending = flows.size();
  uint64_t refusals = 0;
  epoll_event events[64];
  while (pending > 0) {
    const Clock::time_point now = Clock::now();
    if (context.interrupted != nullptr && context.interrupted->load())
      return fail("interrupted while connecting to " + remote_of(0).host());
    if (now >= deadline) {
      size_t first = 0;  // name the first one still waiting (flows may go to several hosts)
      while (slots[first].state == ConnectSlot::State::connected) ++first;
      // Refused before (a retry may be under way right now): say so.
      return fail(std::to_string(pending) + " of " + std::to_string(flows.size()) +
                  " connections to " + remote_of(first).host() + " (first: port " +
                  std::to_string(flows[first].port) + ") not established within " +
                  std::to_string(spec.control.connect_timeout_s) + " s (--connect-timeout)" +
                  (refusals > 0 ? ": connection refused, " + std::to_string(refusals) +
                                      " tries (is the receiver running?)"
                                : ""));
    }
    Clock::time_point wake = std::min(deadline, now + std::chrono::milliseconds(100));
    for (const ConnectSlot& slot : slots)
      if (slot.state == ConnectSlot::State::refused) wake = std::min(wake, slot.retry_at);
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(wake - now);
    const int n =
        epoll_wait(epoll.get(), events, 64, static_cast<int>(std::max<int64_t>(left.count(), 0)));
    if (n < 0 && errno != EINTR) return fail(std::string("epoll_wait: ") + std::strerror(errno));
    for (int k = 0; k < n; ++k) {
      const size_t i = events[k].data.u64;
      const int error = pending_socket_error(sockets[i].get());
      if (error == 0) {
        slots[i].state = ConnectSlot::State::connected;
        --pending;
        // --auth-key: the preamble goes out at once, so the receiver's deferred accept takes it
        // in with the connection. A fresh connection's send buffer takes it whole.
        if (const auto& preamble = context.connection_preamble; !preamble.empty()) {
          const ssize_t sent =
              ::send(sockets[i].get(), preamble.data(), preamble.size(), MSG_NOSIGNAL);
          if (sent != static_cast<ssize_t>(preamble.size()))
            return fail("cannot send the --auth-key preamble to " + remote_of(i).to_string() +
                        ": " + (sent < 0 ? std::strerror(errno) : "a short send"));
        }
      } else if (classify_socket_error(error) == SocketError::refused) {
        sockets[i].reset();  // closing it leaves the epoll set too
        slots[i] = {ConnectSlot::State::refused, Clock::now() + refused_connect_retry_pause};
        // Said at once, by one worker of the run: a wrong port or a receiver not started yet
        // must not cost silent seconds.
        if (refusals++ == 0 && context.refusal_said != nullptr &&
            !context.refusal_said->exchange(true) && context.on_notice)
          context.on_notice(
              fmt::format("{} refused the connection: nothing listens there yet; "
                          "trying again every {} ms for {} s (--connect-timeout)",
                          remote_of(i).to_string(), refused_connect_retry_pause.count(),
                          spec.control.connect_timeout_s),
              false);
      } else if (auto done = finish_connect(sockets[i].get(), remote_of(i)); !done) {
        return fail("cannot connect to " + done.error().message);
      }
    }
    const Clock::time_point after = Clock::now();
    for (size_t i = 0; i < slots.size(); ++i)
      if (slots[i].state == ConnectSlot::State::refused && slots[i].retry_at <= after)
        if (Status started = start(i); !started) return started.error();
  }
  if (Status started = start_iperf2_streams(spec, sockets, notes); !started) return started.error();
  for (size_t i = 0; i < sockets.size(); ++i)
    record_opened(context, sockets[i].get(), remote_of(i), false, context.plan->flows[i].slot);
  return sockets;
}

ConnectionStats sender_connection_stats(const WorkerContext& context, size_t flow, int fd) {
  ConnectionStats stats = read_tcp_info(fd);
  if (stats.remote.empty())
    stats.remote = flow_address(context, context.plan->flows[flow]).to_string();
  return stats;
}

}  // namespace xttcp
