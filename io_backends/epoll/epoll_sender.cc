#include "io_backends/epoll/epoll_sender.hh"

#include <sys/epoll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "engine/count_mode.hh"
#include "engine/stats/call_timer.hh"
#include "engine/stats/tcp_info.hh"
#include "io_backends/common/connect_flows.hh"
#include "io_backends/common/pacer.hh"
#include "io_backends/common/zerocopy_errqueue.hh"
#include "io_backends/epoll/epoll_wait.hh"
#include "io_backends/send_rate.hh"

namespace xttcp {

namespace {


}  // namespace

Status EpollSender::open() {
  const TestSpec& spec = *context_.spec;
  epoll_ = UniqueFd(epoll_create1(EPOLL_CLOEXEC));
  if (!epoll_.valid()) return fail(std::string("epoll_create1: ") + std::strerror(errno));
  buffer_ = IoBuffer(spec.workload.send_buffer, 'A');
  if (!buffer_) return fail("cannot allocate a " + std::to_string(spec.workload.send_buffer) + "-byte buffer");

  auto sockets = connect_flows(context_, report_.notes);
  if (!sockets) return sockets.error();
  connections_.reserve(sockets->size());
  for (size_t i = 0; i < sockets->size(); ++i) {
    epoll_event event{};
    event.events = EPOLLOUT | EPOLLET;
    event.data.u32 = static_cast<uint32_t>(i);
    if (epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, (*sockets)[i].get(), &event) != 0)
      return fail(std::string("epoll_ctl: ") + std::strerror(errno));
    connections_.push_back(
        {std::move((*sockets)[i]), context_.plan->flows[i].slot, true, false, flow_send_budget(spec)});
  }
  if (context_.open_connections) *context_.open_connections += static_cast<int64_t>(connections_.size());
  report_.connections = static_cast<uint32_t>(connections_.size());
  if (spec.io.outstanding > 0)
    report_.notes.push_back("-a has no meaning for epoll (non-blocking sockets, no outstanding "
                            "buffers); use --backend io_uring for asynchronous I/O on Linux");

  if (spec.io.zerocopy != ZeroCopy::off) {
    bool enabled = true;
    for (size_t i = 0; i < connections_.size(); ++i) {
    Connection& c = connections_[i];
      if (enable_zerocopy(c.fd.get())) continue;
      if (spec.io.zerocopy == ZeroCopy::on)
        return fail(std::string("--zerocopy: the kernel refused SO_ZEROCOPY: ") + std::strerror(errno));
      report_.notes.push_back(std::string("zero-copy: the kernel refused SO_ZEROCOPY (") +
                              std::strerror(errno) + "); plain sends");
      enabled = false;
      break;
    }
    if (enabled) send_flags_ |= MSG_ZEROCOPY;
  }
  return ok();
}

void EpollSender::collect_zerocopy(Connection& c) {
  ZeroCopyStats fresh;
  if (!drain_zerocopy_completions(c.fd.get(), fresh) && report_.errors++ == 0)
    report_.first_error = "send: an error arrived on the zero-copy completion queue";
  c.zerocopy += fresh;
  zerocopy_total_ += fresh;
  if (context_.spec->io.zerocopy == ZeroCopy::automatic && (send_flags_ & MSG_ZEROCOPY) &&
      zerocopy_is_futile(zerocopy_total_)) {
    send_flags_ &= ~MSG_ZEROCOPY;
    for (Connection& each : connections_) each.zerocopy.fell_back = true;
    report_.notes.push_back(fmt::format(
        "zero-copy: {:.2f} % of sends were copied by the kernel (loopback and veth always copy); "
        "switched to plain send",
        100.0 * static_cast<double>(zerocopy_total_.copied) /
            static_cast<double>(zerocopy_total_.notifications)));
  }
}

void EpollSender::on_send_error(Connection& c, int err) {
  c.writable = false;
  c.closed = true;
  epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, c.fd.get(), nullptr);
  if (context_.open_connections) --*context_.open_connections;
  if (err == EPIPE || err == ECONNRESET) {
    ++report_.closed_by_peer;
    return;
  }
  if (report_.errors++ == 0) report_.first_error = std::string("send: ") + std::strerror(err);
}

void EpollSender::flow_done(Connection& c) {
  c.writable = false;
  c.closed = true;
  epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, c.fd.get(), nullptr);
  if (::shutdown(c.fd.get(), SHUT_WR) != 0 && report_.errors++ == 0)
    report_.first_error = std::string("shutdown: ") + std::strerror(errno);
  if (context_.on_flow_done) context_.on_flow_done();
}

template <bool Paced, bool Budgeted>
void EpollSender::send_loop(const std::atomic<bool>& stop) {
  const unsigned char* const data = buffer_.data();
  const size_t length = buffer_.size();
  FlowCounter* const counters = context_.counters;
  const TestSpec& spec = *context_.spec;
  const CallTimer timer(context_.latency_period);  // -lm

  Pacer pacer(Paced ? sender_worker_rate(spec, connections_.size()) : 0.0);
  if constexpr (Paced) {
    pacer.set_stop(&stop);
    pacer.start();
  }

  epoll_event events[epoll_batch];
  while (!stop.load(std::memory_order_relaxed)) {
    bool wrote = false;
    for (size_t i = 0; i < connections_.size(); ++i) {
    Connection& c = connections_[i];
      if (!c.writable) continue;
      size_t want = length;
      if constexpr (Budgeted) want = static_cast<size_t>(std::min<uint64_t>(length, c.left));
      const uint64_t started = timer.stamp();
      const ssize_t n = ::send(c.fd.get(), data, want, send_flags_);
      if (n > 0) {
        timer.record(counters[c.slot], started);
        counters[c.slot].add(static_cast<uint64_t>(n));
        if constexpr (Budgeted) {
          c.left -= static_cast<uint64_t>(n);
          if (c.left == 0) flow_done(c);
        }
        if (send_flags_ & MSG_ZEROCOPY) ++c.zerocopy.sends;
        wrote = true;
        if constexpr (Paced) pacer.after_write(static_cast<uint64_t>(n));
      } else if (errno == EAGAIN) {
        c.writable = false;
        if (context_.spec->io.zerocopy != ZeroCopy::off) collect_zerocopy(c);
      } else if (errno == ENOBUFS && context_.spec->io.zerocopy != ZeroCopy::off) {
        collect_zerocopy(c);  // too many completions pending: read them, then retry
      } else if (errno != EINTR) {
        on_send_error(c, errno);
      }
    }
    if (wrote) continue;
    // Every connection is full (or gone): sleep until one drains.
    const int n = epoll_wait(epoll_.get(), events, epoll_batch, epoll_wait_ms);
    for (int i = 0; i < n; ++i) {
      Connection& c = connections_[events[i].data.u32];
      if ((events[i].events & EPOLLERR) && context_.spec->io.zerocopy != ZeroCopy::off)
        collect_zerocopy(c);
      if (!c.closed) c.writable = true;
    }
  }
}

void EpollSender::run(const std::atomic<bool>& stop) {
  const bool paced = sender_worker_rate(*context_.spec, connections_.size()) > 0;  // -B, -thr
  const bool budgeted = flow_send_budget(*context_.spec) > 0;                   // -n
  if (paced)
    budgeted ? send_loop<true, true>(stop) : send_loop<true, false>(stop);
  else
    budgeted ? send_loop<false, true>(stop) : send_loop<false, false>(stop);
}

WorkerReport EpollSender::finish() {
  for (size_t i = 0; i < connections_.size(); ++i) {
    Connection& c = connections_[i];
    if (context_.spec->io.zerocopy != ZeroCopy::off) collect_zerocopy(c);
    ConnectionStats stats = sender_connection_stats(context_, i, c.fd.get());
    stats.bytes = read(context_.counters[c.slot]).bytes;
    stats.zerocopy = c.zerocopy;
    report_.connection_stats.push_back(std::move(stats));
  }
  return report_;
}

}  // namespace xttcp
