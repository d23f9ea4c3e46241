#include "io_backends/epoll/rr_responder.hh"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "engine/net/socket_setup.hh"
#include "engine/stats/tcp_info.hh"
#include "io_backends/common/blocking_socket.hh"
#include "io_backends/common/rr_sockets.hh"
#include "io_backends/epoll/epoll_wait.hh"

namespace xttcp {

namespace {

constexpr uint64_t endpoint_tag = uint64_t{1} << 32;
constexpr size_t io_buffer = 1 << 16;
constexpr int datagrams_per_turn = 64;    // fairness between a worker's UDP flows
constexpr uint32_t lone_look_every = 64;  // a lone TCP connection's turns per look at the rest

}  // namespace

Status EpollRrResponder::open() {
  const TestSpec& spec = *context_.spec;
  request_ = rr_request_bytes(spec);
  response_ = rr_response_bytes(spec);
  epoll_ = UniqueFd(epoll_create1(EPOLL_CLOEXEC));
  if (!epoll_.valid()) return fail(std::string("epoll_create1: ") + std::strerror(errno));
  const bool udp = spec.workload.protocol == Protocol::udp;
  filter_ = filters_datagrams(context_);
  gate_ = rr_udp_gate(context_, request_, response_);
  out_ = IoBuffer(
      udp ? response_ : std::max<size_t>(io_buffer, std::min<size_t>(response_, 1 << 20)), 'A');
  in_ = IoBuffer(std::max<size_t>(io_buffer, udp ? request_ : 0), 0);
  if (!out_ || !in_) return fail("cannot allocate the --rr buffers");
  auto sockets = udp ? open_rr_udp_responders(context_) : open_rr_tcp_listeners(context_);
  if (!sockets) return sockets.error();
  for (size_t i = 0; i < sockets->size(); ++i) {
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.u64 = endpoint_tag | i;
    if (epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, (*sockets)[i].get(), &event) != 0)
      return fail(std::string("epoll_ctl: ") + std::strerror(errno));
    endpoints_.push_back({std::move((*sockets)[i]), context_.plan->flows[i].slot, false});
  }
  if (udp && endpoints_.size() == 1) {
    blocking_ = true;
    if (Status made = block_with_stop_bound(endpoints_[0].fd.get()); !made) return made.error();
  }
  one_listener_ = !udp && endpoints_.size() == 1;
  return ok();
}

void EpollRrResponder::hold_response() const {
  if (context_.spec->rr.delay_us > 0)
    std::this_thread::sleep_for(std::chrono::microseconds(context_.spec->rr.delay_us));
}

void EpollRrResponder::set_events(uint32_t index, bool out) {
  Connection& c = connections_[index];
  if (c.wants_out == out) return;
  epoll_event event{};
  event.events = EPOLLIN | EPOLLRDHUP | (out ? EPOLLOUT : 0u);
  event.data.u64 = index;
  epoll_ctl(epoll_.get(), EPOLL_CTL_MOD, c.fd.get(), &event);
  c.wants_out = out;
}

void EpollRrResponder::accept_all(Endpoint& listener) {
  for (;;) {
    SocketAddress peer;
    peer.length = sizeof peer.storage;
    const int fd =
        accept4(listener.fd.get(), peer.get(), &peer.length, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno != EAGAIN && report_.errors++ == 0)
        report_.first_error = std::string("accept: ") + std::strerror(errno);
      return;
    }
    // --allow / --max-clients / --auth-key: counted there
    if (!admit_data_connection(context_, peer, fd)) {
      ::close(fd);
      continue;
    }
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // answers leave at once
    uint32_t index;
    if (!free_.empty()) {
      index = free_.back();
      free_.pop_back();
    } else {
      index = static_cast<uint32_t>(connections_.size());
      connections_.emplace_back();
    }
    connections_[index] = {UniqueFd(fd), listener.slot, MessageCounter(request_), 0, 0, false};
    epoll_event event{};
    event.events = EPOLLIN | EPOLLRDHUP;
    event.data.u64 = index;
    if (epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fd, &event) != 0 && report_.errors++ == 0)
      report_.first_error = std::string("epoll_ctl: ") + std::strerror(errno);
    ++report_.connections;
    ++live_;
    newest_ = index;
    if (context_.on_accept) context_.on_accept();
    report_data_connection(context_, fd);
  }
}

void EpollRrResponder::close_connection(uint32_t index, int err) {
  Connection& c = connections_[index];
  if (err == 0 || err == ECONNRESET || err == EPIPE) {
    ++report_.closed_by_peer;
  } else if (report_.errors++ == 0) {
    report_.first_error = std::string("recv/send: ") + std::strerror(err);
  }
  if (!context_.spec->control
           .hold)  // -H serves test after test: keeping every one would grow forever
    report_.connection_stats.push_back(read_tcp_info(c.fd.get(), c.bytes));
  epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, c.fd.get(), nullptr);
  c.fd.reset();
  c.blocking = false;
  free_.push_back(index);
  --live_;
}

std::optional<uint32_t> EpollRrResponder::lone_connection() {
  if (!one_listener_ || live_ != 1) return std::nullopt;
  if (!connections_[newest_].fd.valid()) {  // the newest closed first: find the one left
    const auto left = std::find_if(connections_.begin(), connections_.end(),
                                   [](const Connection& c) { return c.fd.valid(); });
    newest_ = static_cast<uint32_t>(left - connections_.begin());
  }
  const uint32_t index = newest_;
  Connection& c = connections_[index];
  if (!c.blocking) {
    if (!block_with_stop_bound(c.fd.get())) return std::nullopt;  // stays polled
    c.blocking = true;
  }
  return index;
}

void EpollRrResponder::tcp_flush(uint32_t index, bool block) {
  Connection& c = connections_[index];
  const int flags = MSG_NOSIGNAL | (block ? 0 : MSG_DONTWAIT);
  while (c.unsent > 0) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(c.unsent, out_.size()));
    const ssize_t n = ::send(c.fd.get(), out_.data(), want, flags);
    if (n > 0) {
      c.unsent -= static_cast<uint64_t>(n);
      continue;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN) return close_connection(index, errno);
    return set_events(index, true);
  }
  set_events(index, false);
}

bool EpollRrResponder::tcp_serve(uint32_t index, bool block) {
  const uint64_t transaction_bytes = uint64_t{request_} + response_;
  // A blocking socket served from the epoll loop must not wait there.
  const int flags = block ? 0 : MSG_DONTWAIT;
  bool held = false;
  for (;;) {
    Connection& c = connections_[index];
    const ssize_t n = ::recv(c.fd.get(), in_.data(), in_.size(), flags);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN) return held;
      close_connection(index, n == 0 ? 0 : errno);
      return false;
    }
    held = true;
    c.bytes += static_cast<uint64_t>(n);
    const uint64_t requests = c.requests.add(static_cast<uint64_t>(n));
    if (requests > 0) {
      FlowCounter& counter = context_.counters[c.slot];
      for (uint64_t i = 0; i < requests; ++i) counter.add(transaction_bytes);
      c.unsent += requests * response_;
      hold_response();
      tcp_flush(index, block);
      if (!connections_[index].fd.valid()) return false;
    }
    if (static_cast<size_t>(n) < in_.size()) return true;  // the socket is empty
  }
}

void EpollRrResponder::udp_serve(Endpoint& socket) {
  FlowCounter& counter = context_.counters[socket.slot];
  // Blocking: one datagram per call, so the loop sees stop after each wait.
  const int turn = blocking_ ? 1 : datagrams_per_turn;
  for (int i = 0; i < turn; ++i) {
    SocketAddress from;
    from.length = sizeof from.storage;
    const ssize_t n =
        ::recvfrom(socket.fd.get(), in_.data(), in_.size(), 0, from.get(), &from.length);
    if (n < 0) {
      if (errno == EINTR || errno == ECONNREFUSED) continue;
      if (errno != EAGAIN && report_.errors++ == 0)
        report_.first_error = std::string("recvfrom: ") + std::strerror(errno);
      return;
    }
    // --allow: a request from elsewhere gets no answer (counted by the admission).
    if (filter_ && !context_.admission->admit_datagram(from)) continue;
    // Not a request, or a larger answer than it brought to a source that proved nothing.
    const auto received = static_cast<size_t>(n);
    if (gate_.answer(in_.data(), std::min(received, in_.size()), received) == 0) continue;
    if (!socket.seen_data) {
      socket.seen_data = true;
      if (context_.on_accept) context_.on_accept();
    }
    // The request's send time goes back in the response's first bytes.
    std::memcpy(out_.data(), in_.data(),
                std::min<size_t>({received, out_.size(), rr_limits::udp_min_bytes}));
    hold_response();
    const ssize_t sent =
        ::sendto(socket.fd.get(), out_.data(), response_, 0, from.get(), from.length);
    if (sent < 0 && errno != EAGAIN && errno != ECONNREFUSED && report_.errors++ == 0)
      report_.first_error = std::string("sendto: ") + std::strerror(errno);
    if (sent > 0) counter.add(static_cast<uint64_t>(n) + response_);
  }
}

void EpollRrResponder::run(const std::atomic<bool>& stop) {
  if (blocking_) {
    while (!stop.load(std::memory_order_relaxed)) udp_serve(endpoints_[0]);
    return;
  }
  epoll_event events[epoll_batch];
  while (!stop.load(std::memory_order_relaxed)) {
    // Served alone, a connection waits in recv(). Every lone_look_every-th turn, and when it
    // stays idle for the stop bound, one look at the epoll set (without waiting) takes new
    // connections and owed responses, so a second flow is not kept waiting by a busy first.
    const std::optional<uint32_t> lone = lone_connection();
    if (lone && ++lone_turns_ % lone_look_every != 0 && tcp_serve(*lone, true)) continue;
    const int n = epoll_wait(epoll_.get(), events, epoll_batch, lone ? 0 : epoll_wait_ms);
    for (int i = 0; i < n; ++i) {
      const uint64_t tag = events[i].data.u64;
      if (tag & endpoint_tag) {
        Endpoint& endpoint = endpoints_[static_cast<uint32_t>(tag)];
        context_.spec->workload.protocol == Protocol::udp ? udp_serve(endpoint)
                                                          : accept_all(endpoint);
        continue;
      }
      const auto index = static_cast<uint32_t>(tag);
      if (!connections_[index].fd.valid()) continue;
      if (events[i].events & EPOLLOUT) tcp_flush(index, false);
      if (connections_[index].fd.valid()) tcp_serve(index, false);
    }
  }
}

WorkerReport EpollRrResponder::finish() {
  for (const Connection& c : connections_)
    if (c.fd.valid()) report_.connection_stats.push_back(read_tcp_info(c.fd.get(), c.bytes));
  gate_.note(report_);
  return report_;
}

}  // namespace xttcp
