#include "io_backends/epoll/epoll_receiver.hh"

#include <sys/epoll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "engine/net/socket_setup.hh"
#include "engine/stats/call_clock.hh"
#include "engine/stats/call_timer.hh"
#include "io_backends/common/tcp_tuning.hh"
#include "io_backends/epoll/epoll_wait.hh"

namespace xttcp {

namespace {

constexpr int reads_per_turn = 16;  // fairness between connections on one worker
constexpr uint64_t listener_tag = uint64_t{1} << 32;
constexpr uint64_t inbox_tag = uint64_t{1} << 33;

}  // namespace

Status EpollReceiver::open() {
  const TestSpec& spec = *context_.spec;
  epoll_ = UniqueFd(epoll_create1(EPOLL_CLOEXEC));
  if (!epoll_.valid()) return fail(std::string("epoll_create1: ") + std::strerror(errno));
  buffer_ = IoBuffer(tcp_receive_length(spec), 0);
  // MSG_TRUNC on a TCP socket discards the bytes in the kernel and returns their count.
  if (spec.io.skip_rx_copy) recv_flags_ = MSG_TRUNC;
  verify_ = spec.workload.verify_data;  // the parser turned --skip-rx-copy off for -d
  count_reads_ = spec.io.count_reads;
  binning_ = ReadSizeBinning(spec.workload.recv_buffer);
  if (verify_) recv_flags_ = 0;
  follow_rates_ = spec.io.receive_mark && !spec.io.wait_all;  // -wa sets its own mark
  // -wa: a non-blocking receive returns what is there; SO_RCVLOWAT (set on each accepted
  // socket) makes epoll wake it only once a whole buffer is, which MSG_WAITALL then takes.
  if (spec.io.wait_all) {
    recv_flags_ |= MSG_WAITALL;
    report_.notes.push_back(
        fmt::format("-wa: MSG_WAITALL receives with SO_RCVLOWAT {} (epoll wakes for whole buffers)",
                    spec.workload.recv_buffer));
  }
  if (spec.io.outstanding > 0)
    report_.notes.push_back(
        "-a has no meaning for epoll (non-blocking sockets, no outstanding "
        "buffers); use --backend io_uring for asynchronous I/O on Linux");
  if (!buffer_)
    return fail("cannot allocate a " + std::to_string(spec.workload.recv_buffer) + "-byte buffer");

  if (!adopted_.empty())
    return adopt_connections(false, [this](uint32_t index) { serve_connection(index, 0); });
  if (context_.inbox != nullptr) {  // one port: the sync listener hands the connections over
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.u64 = inbox_tag;
    if (epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, context_.inbox->pollable(), &event) != 0)
      return fail(std::string("epoll_ctl: ") + std::strerror(errno));
    return ok();
  }
  if (Status opened = open_listeners(false); !opened) return opened;
  for (size_t i = 0; i < listeners_.size(); ++i) {
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.u64 = listener_tag | i;
    if (epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, listeners_[i].fd.get(), &event) != 0)
      return fail(std::string("epoll_ctl: ") + std::strerror(errno));
  }
  return ok();
}

void EpollReceiver::accept_all(uint32_t listener_index) {
  TcpListener& listener = listeners_[listener_index];
  for (;;) {
    SocketAddress peer;
    peer.length = sizeof peer.storage;
    const int fd =
        accept4(listener.fd.get(), peer.get(), &peer.length, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      const int err = errno;
      if (err == EINTR || err == ECONNABORTED) continue;
      if (err == EAGAIN) return;
      // The listener is level-triggered: a lasting failure would wake us at once, for ever. It
      // leaves the epoll set until its rest is over (resume_listeners).
      if (accept_failed(listener, err))
        epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, listener.fd.get(), nullptr);
      return;
    }
    accepted(listener);
    // --allow / --max-clients / --auth-key: counted there
    if (!admit_data_connection(context_, peer, fd)) {
      ::close(fd);
      continue;
    }
    serve_connection(add_connection(listener, fd, &peer), listener.port);
  }
}

void EpollReceiver::serve_connection(uint32_t index, uint16_t port) {
  Connection& c = connections_[index];
  const int fd = c.fd.get();
  c.queued = true;
  c.port = port;
  if (recv_flags_ & MSG_WAITALL) {
    const int lowat = static_cast<int>(context_.spec->workload.recv_buffer);
    setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &lowat, sizeof lowat);
  }
  epoll_event event{};
  event.events = EPOLLIN | EPOLLRDHUP | EPOLLET;
  event.data.u64 = index;
  if (epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fd, &event) != 0)
    record_error(std::string("epoll_ctl: ") + std::strerror(errno));
  ready_.push_back(index);  // data may have arrived before the registration
  if (context_.on_accept) context_.on_accept();
  report_data_connection(context_, fd);
}

void EpollReceiver::close_connection(uint32_t index, int err) {
  Connection& c = connections_[index];
  connection_ended(c, err);
  epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, c.fd.get(), nullptr);
  c.fd.reset();
  free_.push_back(index);
}

template <bool CountReads>
bool EpollReceiver::drain(uint32_t index) {
  Connection& c = connections_[index];
  FlowCounter& counter = context_.counters[c.slot];
  unsigned char* const data = buffer_.data();
  const size_t length = buffer_.size();
  const CallTimer timer(context_.latency_period);  // -lm
  for (int i = 0; i < reads_per_turn; ++i) {
    const uint64_t started = timer.stamp();
    const ssize_t n = ::recv(c.fd.get(), data, length, recv_flags_);
    if (n > 0) {
      timer.record(counter, started);
      if (verify_) verify(c, data, static_cast<size_t>(n));
      counter.add(static_cast<uint64_t>(n));
      c.bytes += static_cast<uint64_t>(n);
      if constexpr (CountReads)
        if (c.tally != nullptr) binning_.count(*c.tally, static_cast<uint64_t>(n));
      continue;
    }
    if (n == 0) {
      close_connection(index, 0);
      return false;
    }
    if (errno == EAGAIN) return false;
    if (errno == EINTR) continue;
    close_connection(index, errno);
    return false;
  }
  return true;
}

void EpollReceiver::verify(const Connection& c, const unsigned char* data, size_t n) {
  const unsigned char* end = data + n;
  const unsigned char* wrong =
      std::find_if(data, end, [](unsigned char byte) { return byte != 'A'; });
  if (wrong == end) return;
  if (report_.errors++ == 0)
    report_.first_error = fmt::format(
        "received data is not all 'A' (-d): byte 0x{:02x} at offset {} of a connection on port {}",
        *wrong, c.bytes + static_cast<uint64_t>(wrong - data), c.port);
}

int EpollReceiver::resume_listeners(int timeout_ms) {
  const auto now = ListenerRest::Clock::now();
  const auto next =
      resume_due_listeners(now, now + std::chrono::milliseconds(timeout_ms), [&](uint32_t i) {
        epoll_event event{};
        event.events = EPOLLIN;
        event.data.u64 = listener_tag | i;
        epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, listeners_[i].fd.get(),
                  &event);  // level: wakes if queued
      });
  return static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(next - now).count());
}

void EpollReceiver::run(const std::atomic<bool>& stop) {
  if (count_reads_)
    serve<true>(stop);
  else
    serve<false>(stop);
}

template <bool CountReads>
void EpollReceiver::serve(const std::atomic<bool>& stop) {
  epoll_event events[epoll_batch];
  std::vector<uint32_t> still_ready;
  while (!stop.load(std::memory_order_relaxed)) {
    int timeout_ms = ready_.empty() ? epoll_wait_ms : 0;
    if (follow_rates_) {
      const uint64_t until_sweep_ns = follow_rates(call_clock_ticks());
      timeout_ms = std::min(timeout_ms, std::max(1, static_cast<int>(until_sweep_ns / 1'000'000)));
    }
    if (resting_ > 0) timeout_ms = resume_listeners(timeout_ms);
    const int n = epoll_wait(epoll_.get(), events, epoll_batch, timeout_ms);
    for (int i = 0; i < n; ++i) {
      const uint64_t tag = events[i].data.u64;
      if (tag & listener_tag) {
        accept_all(static_cast<uint32_t>(tag));
        continue;
      }
      if (tag == inbox_tag) {
        take_mail(
            false,
            [this](uint32_t index) { serve_connection(index, context_.spec->layout.base_port); },
            [this](uint32_t index) { close_connection(index, 0); });
        continue;
      }
      Connection& c = connections_[static_cast<uint32_t>(tag)];
      if (c.fd.valid() && !c.queued) {
        c.queued = true;
        ready_.push_back(static_cast<uint32_t>(tag));
      }
    }
    still_ready.clear();
    for (uint32_t index : ready_) {
      connections_[index].queued = false;
      if (!connections_[index].fd.valid()) continue;
      if (drain<CountReads>(index)) {
        connections_[index].queued = true;
        still_ready.push_back(index);
      }
    }
    ready_.swap(still_ready);
  }
}

WorkerReport EpollReceiver::finish() { return finish_report(); }

}  // namespace xttcp
