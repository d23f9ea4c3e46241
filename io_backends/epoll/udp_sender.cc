#include "io_backends/epoll/udp_sender.hh"

#include <netinet/udp.h>
#include <sys/epoll.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "engine/stats/call_timer.hh"
#include "engine/udp/datagram_header.hh"
#include "io_backends/common/iperf2_udp_client.hh"
#include "io_backends/common/udp_accounting.hh"
#include "io_backends/send_rate.hh"

namespace xttcp {

namespace {

constexpr uint32_t mmsg_batch = 64;
constexpr char compat_fill = 'B';  // NTTTCP-for-Linux's UDP payload

}  // namespace

Status EpollUdpSender::open() {
  epoll_.reset(epoll_create1(EPOLL_CLOEXEC));
  if (!epoll_.valid()) return fail(std::string("epoll_create1: ") + std::strerror(errno));
  if (Status opened = open_flows(false); !opened) return opened;
  for (size_t i = 0; i < flows_.size(); ++i) {
    epoll_event event{};
    event.events = EPOLLOUT | EPOLLET;
    event.data.u32 = static_cast<uint32_t>(i);
    if (epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, flows_[i].fd.get(), &event) != 0)
      return fail(std::string("epoll_ctl: ") + std::strerror(errno));
  }

  // sendmmsg batches stay within ~256 KiB so the source stays in cache (64 x 64 KiB would not).
  // Without batching (--defaults ntttcp): one datagram per call, as the original sends.
  batch_ =
      gso_segments_ > 0 ? gso_segments_
      : !context_.spec->io.udp_send_batching
          ? 1
          : std::clamp<uint32_t>((256u << 10) / std::max<uint32_t>(datagram_, 1), 1, mmsg_batch);
  buffer_ = IoBuffer(static_cast<std::size_t>(batch_) * datagram_, compat_fill);
  if (!buffer_) return fail("cannot allocate " + std::to_string(batch_) + " datagrams");
  messages_.assign(batch_, mmsghdr{});
  iovecs_.assign(batch_, iovec{});
  for (uint32_t i = 0; i < batch_; ++i) {
    iovecs_[i] = {buffer_.data() + static_cast<std::size_t>(i) * datagram_, datagram_};
    messages_[i].msg_hdr.msg_iov = &iovecs_[i];
    messages_[i].msg_hdr.msg_iovlen = 1;
  }
  if (native()) {
    for (uint32_t i = 0; i < batch_; ++i)
      udp::encode(udp::DatagramHeader{}, buffer_.data() + static_cast<std::size_t>(i) * datagram_);
  } else if (head_ == udp::DatagramLayout::iperf2) {
    write_iperf2_udp_headers(*context_.spec, buffer_.data(), datagram_, batch_);
  }
  return ok();
}

// Flow id and sequence of each datagram in the batch; one clock read for the batch (they leave
// back to back).
void EpollUdpSender::stamp(const Flow& flow, uint32_t count) {
  if (!head_) return;  // NTTTCP's payload: nothing to stamp
  UdpSenderBook::stamp(buffer_.data(), count, flow.flow_id, flow.token, flow.next_sequence,
                       stamps_time() ? monotonic_ns() : 0);
}

uint32_t EpollUdpSender::send_batch(Flow& flow, uint32_t count) {
  stamp(flow, count);
  ssize_t sent;                                    // datagrams
  const CallTimer timer(context_.latency_period);  // -lm: one sendmsg/sendmmsg is one call
  const uint64_t started = timer.stamp();
  if (gso_segments_ > 0) {
    iovec iov{buffer_.data(), static_cast<std::size_t>(count) * datagram_};
    msghdr message{};
    message.msg_iov = &iov;
    message.msg_iovlen = 1;
    const ssize_t n = ::sendmsg(flow.fd.get(), &message, 0);
    sent = n < 0 ? -1 : n / static_cast<ssize_t>(datagram_);
  } else {
    if (!flow.connected) {  // -uc: each datagram names its destination
      for (uint32_t i = 0; i < count; ++i) {
        messages_[i].msg_hdr.msg_name = const_cast<sockaddr*>(flow.remote.get());
        messages_[i].msg_hdr.msg_namelen = flow.remote.length;
      }
    }
    sent = ::sendmmsg(flow.fd.get(), messages_.data(), count, 0);
  }
  if (sent > 0) {
    timer.record(context_.counters[flow.slot], started);
    count_sent(flow, static_cast<uint64_t>(sent));
    flow.next_sequence += static_cast<uint64_t>(sent);
    if (flow.left == 0) begin_end_markers(flow, ending_);  // count mode: the data is done
    return static_cast<uint32_t>(sent);
  }
  if (sent == 0 || errno == EAGAIN || errno == ENOBUFS) {
    flow.writable = false;
  } else if (errno == ECONNREFUSED) {
    ++refused_;  // an ICMP port unreachable for an earlier datagram; NTTTCP goes on too
  } else if (errno != EINTR) {
    flow.closed = true;
    record_error(std::string("UDP send: ") + std::strerror(errno));
    if (budget_ > 0) flow_done(flow);  // count mode: the run ends and reports the error
  }
  return 0;
}

void EpollUdpSender::flow_done(Flow& flow) {
  flow.writable = false;
  if (context_.on_flow_done) context_.on_flow_done();
}

template <bool Paced>
void EpollUdpSender::send_loop(const std::atomic<bool>& stop, Pacer& pacer, uint32_t burst) {
  epoll_event events[64];
  while (!stop.load(std::memory_order_relaxed)) {
    if (ending_ > 0)
      send_end_markers(
          flows_, budget_, !native(), ending_, [this](Flow& flow) { flow_done(flow); },
          [this](const std::string& what) { record_error(what); });
    bool sent_any = false;
    for (Flow& flow : flows_) {
      if (!flow.writable || flow.closed) continue;
      // Count mode: never past the budget (flow.left is UINT64_MAX in a timed run).
      const auto count = static_cast<uint32_t>(std::min<uint64_t>(burst, flow.left));
      const uint32_t sent = send_batch(flow, count);
      if (sent == 0) continue;
      sent_any = true;
      if constexpr (Paced) pacer.after_write(static_cast<uint64_t>(sent) * datagram_);
    }
    if (sent_any) continue;
    // Every socket buffer is full: sleep until one drains; ENOBUFS (a full device queue) gives
    // no event, so after 1 ms every flow is tried again.
    const int n = epoll_wait(epoll_.get(), events, 64, 1);
    for (int i = 0; i < n; ++i) flows_[events[i].data.u32].writable = true;
    if (n == 0)
      for (Flow& flow : flows_) flow.writable = true;
  }
}

void EpollUdpSender::run(const std::atomic<bool>& stop) {
  const TestSpec& spec = *context_.spec;
  const double bytes_per_second = sender_worker_rate(spec, flows_.size());  // -B, -thr
  if (bytes_per_second == 0) {
    Pacer unpaced(0);
    send_loop<false>(stop, unpaced, batch_);
    return;
  }
  // A burst is at most ~1 ms of this worker's rate (at least one datagram).
  const auto burst = static_cast<uint32_t>(
      std::clamp(bytes_per_second / 1000.0 / datagram_, 1.0, static_cast<double>(batch_)));
  Pacer pacer(bytes_per_second);
  pacer.set_stop(&stop);
  pacer.start();
  send_loop<true>(stop, pacer, burst);
}

WorkerReport EpollUdpSender::finish() { return finish_report(""); }

}  // namespace xttcp
