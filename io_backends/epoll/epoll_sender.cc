#include "io_backends/epoll/epoll_sender.hh"

#include <sys/epoll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "engine/count_mode.hh"
#include "engine/stats/call_timer.hh"
#include "io_backends/common/blocking_socket.hh"
#include "io_backends/common/pacer.hh"
#include "io_backends/common/zerocopy_errqueue.hh"
#include "io_backends/epoll/epoll_wait.hh"
#include "io_backends/send_rate.hh"

namespace xttcp {

Status EpollSender::open() {
  const TestSpec& spec = *context_.spec;
  epoll_ = UniqueFd(epoll_create1(EPOLL_CLOEXEC));
  if (!epoll_.valid()) return fail(std::string("epoll_create1: ") + std::strerror(errno));
  buffer_ = IoBuffer(spec.workload.send_buffer, 'A');
  if (!buffer_)
    return fail("cannot allocate a " + std::to_string(spec.workload.send_buffer) + "-byte buffer");

  if (Status opened = open_connections(false); !opened) return opened;
  for (size_t i = 0; i < connections_.size(); ++i) {
    epoll_event event{};
    event.events = EPOLLOUT | EPOLLET;
    event.data.u32 = static_cast<uint32_t>(i);
    if (epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, connections_[i].fd.get(), &event) != 0)
      return fail(std::string("epoll_ctl: ") + std::strerror(errno));
  }
  if (spec.io.outstanding > 0)
    report_.notes.push_back(
        "-a has no meaning for epoll (non-blocking sockets, no outstanding "
        "buffers); use --backend io_uring for asynchronous I/O on Linux");

  if (spec.io.zerocopy != ZeroCopy::off) {
    bool enabled = true;
    for (const Connection& c : connections_) {
      if (enable_zerocopy(c.fd.get())) continue;
      if (spec.io.zerocopy == ZeroCopy::on)
        return fail(std::string("--zerocopy: the kernel refused SO_ZEROCOPY: ") +
                    std::strerror(errno));
      report_.notes.push_back(std::string("zero-copy: the kernel refused SO_ZEROCOPY (") +
                              std::strerror(errno) + "); plain sends");
      enabled = false;
      break;
    }
    if (enabled) send_flags_ |= MSG_ZEROCOPY;
  }
  // One connection: block in send() as a thread-per-stream tool does. On loopback that moved
  // about 1.7x the bytes per CPU-second of non-blocking sends that rarely found the socket full
  // (bench/README.md, "Google Cloud's iperf2 commands, and one connection per worker").
  // Zero-copy keeps polling: its completions arrive on the error queue, which a blocked send()
  // would not read.
  if (connections_.size() == 1 && spec.io.zerocopy == ZeroCopy::off) {
    if (Status made = block_with_stop_bound(connections_[0].fd.get()); !made) return made;
    blocking_ = true;
  }
  return ok();
}

void EpollSender::collect_zerocopy(Connection& c) {
  ZeroCopyStats fresh;
  if (!drain_zerocopy_completions(c.fd.get(), fresh))
    record_error("send: an error arrived on the zero-copy completion queue");
  count_zerocopy(c, fresh);
  if (context_.spec->io.zerocopy == ZeroCopy::automatic && (send_flags_ & MSG_ZEROCOPY) &&
      zerocopy_is_futile(zerocopy_total_)) {
    send_flags_ &= ~MSG_ZEROCOPY;
    fall_back_from_zerocopy();
  }
}

void EpollSender::on_send_error(Connection& c, int err) {
  c.writable = false;
  epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, c.fd.get(), nullptr);
  connection_lost(c, err);
}

void EpollSender::flow_done(Connection& c) {
  c.writable = false;
  epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, c.fd.get(), nullptr);
  budget_sent(c);
}

template <bool Paced, bool Budgeted>
void EpollSender::send_loop(const std::atomic<bool>& stop) {
  const unsigned char* const data = buffer_.data();
  const size_t length = buffer_.size();
  FlowCounter* const counters = context_.counters;
  const TestSpec& spec = *context_.spec;
  const CallTimer timer(context_.latency_period);  // -lm

  Pacer pacer(Paced ? sender_worker_rate(spec, connections_.size()) : 0.0, tcp_pacing_burst_ns);
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
        if (blocking_) continue;  // the stop bound passed with nothing sent: look at stop
        c.writable = false;
        if (context_.spec->io.zerocopy != ZeroCopy::off) collect_zerocopy(c);
      } else if (errno == ENOBUFS && context_.spec->io.zerocopy != ZeroCopy::off) {
        collect_zerocopy(c);  // too many completions pending: read them, then retry
      } else if (errno != EINTR) {
        on_send_error(c, errno);
      }
    }
    if (wrote || (blocking_ && connections_[0].writable)) continue;
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
  const bool budgeted = flow_send_budget(*context_.spec) > 0;                      // -n
  if (paced)
    budgeted ? send_loop<true, true>(stop) : send_loop<true, false>(stop);
  else
    budgeted ? send_loop<false, true>(stop) : send_loop<false, false>(stop);
}

WorkerReport EpollSender::finish() {
  if (context_.spec->io.zerocopy != ZeroCopy::off)
    for (Connection& c : connections_) collect_zerocopy(c);
  return finish_report();
}

}  // namespace xttcp
