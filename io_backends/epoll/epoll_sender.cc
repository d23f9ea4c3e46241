#include "io_backends/epoll/epoll_sender.hh"

#include <sys/epoll.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "engine/net/socket_setup.hh"
#include "engine/stats/tcp_info.hh"
#include "io_backends/common/pacer.hh"

namespace xttcp {

namespace {

constexpr int wait_ms = 100;  // bounds how late a worker sees `stop`
constexpr int max_events = 256;

}  // namespace

Status EpollSender::open() {
  const TestSpec& spec = *context_.spec;
  epoll_ = UniqueFd(epoll_create1(EPOLL_CLOEXEC));
  if (!epoll_.valid()) return fail(std::string("epoll_create1: ") + std::strerror(errno));
  buffer_ = IoBuffer(spec.send_buffer, 'A');
  if (!buffer_) return fail("cannot allocate a " + std::to_string(spec.send_buffer) + "-byte buffer");

  ConnectOptions options;
  options.no_delay = spec.no_delay;
  if (spec.fq_rate_limit_bps > 0)
    options.max_pacing_rate_bytes = spec.fq_rate_limit_bps / spec.sender_connections() / 8;
  options.bind_to_device = !spec.source_address.empty();

  // Start every connect, then wait for all of them together.
  connections_.reserve(context_.plan->flows.size());
  for (const FlowPlan& flow : context_.plan->flows) {
    SocketAddress remote = context_.remote;
    remote.set_port(flow.port);
    options.source.reset();
    if (!spec.source_address.empty() || flow.source_port != 0) {
      SocketAddress source = context_.local;
      source.set_port(flow.source_port);
      options.source = source;
    }
    auto fd = start_connect_tcp(remote, options);
    if (!fd) return fail("cannot connect to " + remote.to_string() + ": " + fd.error().message);
    epoll_event event{};
    event.events = EPOLLOUT | EPOLLET;
    event.data.u32 = static_cast<uint32_t>(connections_.size());
    if (epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fd->get(), &event) != 0)
      return fail(std::string("epoll_ctl: ") + std::strerror(errno));
    connections_.push_back({std::move(*fd), flow.slot, false, false});
  }

  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(spec.connect_timeout_s);
  size_t pending = connections_.size();
  epoll_event events[max_events];
  while (pending > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0)
      return fail(std::to_string(pending) + " of " + std::to_string(connections_.size()) +
                  " connections to " + context_.remote.host() + " not established within " +
                  std::to_string(spec.connect_timeout_s) + " s (--connect-timeout)");
    const int n = epoll_wait(epoll_.get(), events, max_events, static_cast<int>(left.count()));
    if (n < 0 && errno != EINTR) return fail(std::string("epoll_wait: ") + std::strerror(errno));
    for (int i = 0; i < n; ++i) {
      Connection& c = connections_[events[i].data.u32];
      if (c.writable) continue;
      SocketAddress remote = context_.remote;
      remote.set_port(context_.plan->flows[events[i].data.u32].port);
      if (auto done = finish_connect(c.fd.get(), remote); !done)
        return fail("cannot connect to " + done.error().message);
      c.writable = true;
      --pending;
    }
  }
  report_.connections = static_cast<uint32_t>(connections_.size());
  return ok();
}

void EpollSender::on_send_error(Connection& c, int err) {
  c.writable = false;
  c.closed = true;
  epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, c.fd.get(), nullptr);
  if (err == EPIPE || err == ECONNRESET) {
    ++report_.closed_by_peer;
    return;
  }
  if (report_.errors++ == 0) report_.first_error = std::string("send: ") + std::strerror(err);
}

template <bool Paced>
void EpollSender::send_loop(const std::atomic<bool>& stop) {
  const unsigned char* const data = buffer_.data();
  const size_t length = buffer_.size();
  FlowCounter* const counters = context_.counters;
  const TestSpec& spec = *context_.spec;

  Pacer pacer(Paced ? static_cast<double>(spec.rate_limit_bps) / 8.0 * connections_.size() /
                          spec.sender_connections()
                    : 0.0);
  if constexpr (Paced) pacer.start();

  epoll_event events[max_events];
  while (!stop.load(std::memory_order_relaxed)) {
    bool wrote = false;
    for (Connection& c : connections_) {
      if (!c.writable) continue;
      const ssize_t n = ::send(c.fd.get(), data, length, MSG_NOSIGNAL);
      if (n > 0) {
        counters[c.slot].add(static_cast<uint64_t>(n));
        wrote = true;
        if constexpr (Paced) pacer.after_write(static_cast<uint64_t>(n));
      } else if (errno == EAGAIN) {
        c.writable = false;
      } else if (errno != EINTR) {
        on_send_error(c, errno);
      }
    }
    if (wrote) continue;
    // Every connection is full (or gone): sleep until one drains.
    const int n = epoll_wait(epoll_.get(), events, max_events, wait_ms);
    for (int i = 0; i < n; ++i) {
      Connection& c = connections_[events[i].data.u32];
      if (!c.closed) c.writable = true;
    }
  }
}

void EpollSender::run(const std::atomic<bool>& stop) {
  if (context_.spec->rate_limit_bps > 0)
    send_loop<true>(stop);
  else
    send_loop<false>(stop);
}

WorkerReport EpollSender::finish() {
  for (const Connection& c : connections_) {
    ConnectionStats stats = read_tcp_info(c.fd.get());
    stats.bytes = read(context_.counters[c.slot]).bytes;
    report_.connection_stats.push_back(std::move(stats));
  }
  return report_;
}

}  // namespace xttcp
