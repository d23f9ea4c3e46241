#include "io_backends/epoll/rr_requester.hh"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "engine/net/socket_setup.hh"
#include "io_backends/common/connect_flows.hh"
#include "io_backends/common/blocking_socket.hh"
#include "io_backends/common/rr_sockets.hh"
#include "io_backends/epoll/epoll_wait.hh"

namespace xttcp {

namespace {

constexpr uint64_t max_epoll_rr_buffer = 1 << 20;

}  // namespace

Status EpollRrRequester::open() {
  const TestSpec& spec = *context_.spec;
  request_ = rr_request_bytes(spec);
  response_ = rr_response_bytes(spec);
  depth_ = spec.rr.depth;
  epoll_ = UniqueFd(epoll_create1(EPOLL_CLOEXEC));
  if (!epoll_.valid()) return fail(std::string("epoll_create1: ") + std::strerror(errno));
  const bool udp = spec.workload.protocol == Protocol::udp;
  // TCP writes up to depth requests at once; UDP one datagram at a time.
  out_ = IoBuffer(
      udp ? request_ : std::min<uint64_t>(uint64_t{request_} * depth_, max_epoll_rr_buffer), 'A');
  in_ = IoBuffer(
      udp ? response_ : std::min<uint64_t>(uint64_t{response_} * depth_, max_epoll_rr_buffer), 0);
  if (!out_ || !in_) return fail("cannot allocate the --rr buffers");

  auto opened = open_rr_requesters(context_, udp, report_.notes);
  if (!opened) return opened.error();
  std::vector<UniqueFd> sockets = std::move(*opened);
  flows_.reserve(sockets.size());
  for (size_t i = 0; i < sockets.size(); ++i) {
    const int one = 1;
    // A request must leave at once, not wait for the previous one's acknowledgement.
    if (!udp && setsockopt(sockets[i].get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0)
      return fail(std::string("TCP_NODELAY: ") + std::strerror(errno));
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.u32 = static_cast<uint32_t>(i);
    if (epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, sockets[i].get(), &event) != 0)
      return fail(std::string("epoll_ctl: ") + std::strerror(errno));
    Flow flow;
    flow.fd = std::move(sockets[i]);
    flow.slot = context_.plan->flows[i].slot;
    flow.stamps = StampQueue(depth_);
    flow.responses = MessageCounter(response_);
    flow.window = UdpRrWindow(depth_, loss_pause_ticks_);
    flows_.push_back(std::move(flow));
  }
  if (flows_.size() == 1) {
    blocking_ = true;
    if (Status made = block_with_stop_bound(flows_[0].fd.get()); !made) return made.error();
  }
  if (context_.open_connections && !udp)
    *context_.open_connections += static_cast<int64_t>(flows_.size());
  report_.connections = static_cast<uint32_t>(flows_.size());
  return ok();
}

void EpollRrRequester::fail_flow(Flow& flow, const char* call, int err) {
  if (flow.closed) return;
  flow.closed = true;
  epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, flow.fd.get(), nullptr);
  if (context_.open_connections && context_.spec->workload.protocol == Protocol::tcp)
    --*context_.open_connections;
  if (err == 0 || err == EPIPE || err == ECONNRESET || err == ECONNREFUSED) {
    ++report_.closed_by_peer;
    return;
  }
  if (report_.errors++ == 0) report_.first_error = std::string(call) + ": " + std::strerror(err);
}

// ---- TCP --------------------------------------------------------------------------------

void EpollRrRequester::tcp_flush(Flow& flow) {
  while (flow.unsent > 0) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(flow.unsent, out_.size()));
    // Never blocks, also on a blocking socket: a full send buffer must not stop the reads that
    // let the responder (blocked sending its answers) take the rest.
    const ssize_t n = ::send(flow.fd.get(), out_.data(), want, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      flow.unsent -= static_cast<uint64_t>(n);
      continue;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN) return fail_flow(flow, "send", errno);
    if (blocking_) return;  // single_flow_loop waits for room
    if (!flow.wants_out) {
      epoll_event event{};
      event.events = EPOLLIN | EPOLLOUT;
      event.data.u32 = static_cast<uint32_t>(&flow - flows_.data());
      epoll_ctl(epoll_.get(), EPOLL_CTL_MOD, flow.fd.get(), &event);
      flow.wants_out = true;
    }
    return;
  }
  if (flow.wants_out) {
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.u32 = static_cast<uint32_t>(&flow - flows_.data());
    epoll_ctl(epoll_.get(), EPOLL_CTL_MOD, flow.fd.get(), &event);
    flow.wants_out = false;
  }
}

void EpollRrRequester::tcp_received(Flow& flow, uint64_t n) {
  complete_tcp_responses(flow, n, context_, clock_, request_, response_);
  tcp_flush(flow);
}

void EpollRrRequester::tcp_read(Flow& flow) {
  for (;;) {
    const ssize_t n = ::recv(flow.fd.get(), in_.data(), in_.size(), 0);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN) return;
      return fail_flow(flow, "recv", n == 0 ? 0 : errno);
    }
    tcp_received(flow, static_cast<uint64_t>(n));
    if (flow.closed) return;
    // A short read emptied the socket: back to epoll rather than a read that finds nothing.
    if (static_cast<size_t>(n) < in_.size()) return;
  }
}

void EpollRrRequester::tcp_start(Flow& flow) {
  const uint64_t start = clock_.now();
  for (uint32_t i = 0; i < depth_; ++i) flow.stamps.push(start);
  flow.unsent = uint64_t{request_} * depth_;
  tcp_flush(flow);
}

void EpollRrRequester::tcp_loop(const std::atomic<bool>& stop) {
  for (Flow& flow : flows_) tcp_start(flow);
  epoll_event events[epoll_batch];
  while (!stop.load(std::memory_order_relaxed)) {
    const int n = epoll_wait(epoll_.get(), events, epoll_batch, epoll_wait_ms);
    for (int i = 0; i < n; ++i) {
      Flow& flow = flows_[events[i].data.u32];
      if (flow.closed) continue;
      if (events[i].events & EPOLLOUT) tcp_flush(flow);
      if (!flow.closed && (events[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP))) tcp_read(flow);
    }
  }
}

// ---- UDP --------------------------------------------------------------------------------

void EpollRrRequester::udp_refill(Flow& flow, uint64_t now) {
  while (flow.window.room()) {
    write_rr_stamp(out_.data(), clock_.now());
    prove_rr_requests(out_.data(), 1, request_, context_, flow.slot);  // out_ serves every flow
    const ssize_t n = ::send(flow.fd.get(), out_.data(), request_, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      // A full socket buffer or a refused earlier datagram: the loss pause tries again.
      if (errno != EAGAIN && errno != ECONNREFUSED) fail_flow(flow, "send", errno);
      break;
    }
    flow.window.sent();
  }
  flow.window.refilled(now);
}

void EpollRrRequester::udp_received(Flow& flow, size_t n) {
  if (n < rr_limits::udp_min_bytes) return;
  const uint64_t now = clock_.now();
  const uint64_t stamp = read_rr_stamp(in_.data());
  if (!flow.window.answer(stamp, now)) return;  // given up as lost, or not ours
  context_.rr_histograms[flow.slot].record(clock_.to_ns(now - stamp));
  context_.counters[flow.slot].add(uint64_t{request_} + response_);
  udp_refill(flow, now);
}

void EpollRrRequester::udp_check_loss(Flow& flow, uint64_t now) {
  if (flow.closed || !flow.window.quiet(now)) return;
  report_.rr_lost += flow.window.give_up(now);
  udp_refill(flow, now);
}

void EpollRrRequester::udp_read(Flow& flow) {
  for (;;) {
    const ssize_t n = ::recv(flow.fd.get(), in_.data(), in_.size(), 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) return;
      if (errno == ECONNREFUSED) continue;  // an ICMP error about an earlier datagram
      return fail_flow(flow, "recv", errno);
    }
    udp_received(flow, static_cast<size_t>(n));
    if (flow.closed) return;
  }
}

void EpollRrRequester::udp_loop(const std::atomic<bool>& stop) {
  for (Flow& flow : flows_) udp_refill(flow, clock_.now());
  epoll_event events[epoll_batch];
  while (!stop.load(std::memory_order_relaxed)) {
    const int n = epoll_wait(epoll_.get(), events, epoll_batch, epoll_wait_ms);
    for (int i = 0; i < n; ++i) {
      Flow& flow = flows_[events[i].data.u32];
      if (!flow.closed) udp_read(flow);
    }
    const uint64_t now = clock_.now();
    for (Flow& flow : flows_) udp_check_loss(flow, now);
  }
}

// ---- one flow: blocking recv() -----------------------------------------------------------

void EpollRrRequester::single_flow_loop(const std::atomic<bool>& stop) {
  Flow& flow = flows_[0];
  const bool udp = context_.spec->workload.protocol == Protocol::udp;
  if (udp)
    udp_refill(flow, clock_.now());
  else
    tcp_start(flow);
  while (!stop.load(std::memory_order_relaxed) && !flow.closed) {
    if (!udp && flow.unsent > 0) {  // requests left over: wait for room or for responses
      pollfd ready{flow.fd.get(), POLLIN | POLLOUT, 0};
      if (::poll(&ready, 1, epoll_wait_ms) <= 0) continue;
      if (ready.revents & POLLOUT) tcp_flush(flow);
      if (!(ready.revents & (POLLIN | POLLERR | POLLHUP))) continue;
    }
    const ssize_t n = ::recv(flow.fd.get(), in_.data(), in_.size(), 0);
    if (n > 0) {
      if (udp)
        udp_received(flow, static_cast<size_t>(n));
      else
        tcp_received(flow, static_cast<uint64_t>(n));
    } else if (n == 0 && !udp) {
      fail_flow(flow, "recv", 0);
    } else if (n < 0 && errno != EAGAIN && errno != EINTR && !(udp && errno == ECONNREFUSED)) {
      fail_flow(flow, "recv", errno);
    }
    // Only after a wait that ended empty: a response refills the flow itself.
    if (n <= 0 && udp) udp_check_loss(flow, clock_.now());
  }
}

void EpollRrRequester::run(const std::atomic<bool>& stop) {
  if (blocking_)
    single_flow_loop(stop);
  else if (context_.spec->workload.protocol == Protocol::udp)
    udp_loop(stop);
  else
    tcp_loop(stop);
}

WorkerReport EpollRrRequester::finish() {
  if (context_.spec->workload.protocol == Protocol::tcp)
    for (size_t i = 0; i < flows_.size(); ++i) {
      ConnectionStats stats = sender_connection_stats(context_, i, flows_[i].fd.get());
      stats.bytes = read(context_.counters[flows_[i].slot]).bytes;
      report_.connection_stats.push_back(std::move(stats));
    }
  return report_;
}

}  // namespace xttcp
