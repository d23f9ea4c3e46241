#include "io_backends/epoll/udp_receiver.hh"

#include <netinet/udp.h>
#include <sys/epoll.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "engine/stats/call_timer.hh"
#include "io_backends/common/iperf2_udp_server.hh"
#include "io_backends/common/udp_socket.hh"
#include "io_backends/epoll/epoll_wait.hh"

namespace xttcp {

namespace {

constexpr uint32_t batch = 64;              // messages per recvmmsg
constexpr int batches_per_turn = 16;        // fairness between sockets
constexpr std::size_t full_buffer = 65536;  // the largest datagram, or a GRO train
constexpr std::size_t header_buffer = 64;   // --skip-rx-copy without GRO: the header only
constexpr std::size_t control_bytes = udp_control_bytes;

}  // namespace

Status EpollUdpReceiver::open() {
  epoll_.reset(epoll_create1(EPOLL_CLOEXEC));
  if (!epoll_.valid()) return fail(std::string("epoll_create1: ") + std::strerror(errno));
  if (Status opened = open_sockets(false); !opened) return opened;
  for (uint32_t i = 0; i < sockets_.size(); ++i) {
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.u32 = i;
    if (epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, sockets_[i].fd.get(), &event) != 0)
      return fail(std::string("epoll_ctl: ") + std::strerror(errno));
  }
  buffer_size_ = full_buffer;
  buffers_ = IoBuffer(buffer_size_ * batch, 0);
  if (!buffers_) return fail("cannot allocate the UDP receive buffers");
  messages_.assign(batch, mmsghdr{});
  iovecs_.assign(batch, iovec{});
  control_.assign(control_bytes * batch, 0);
  for (uint32_t i = 0; i < batch; ++i) {
    iovecs_[i] = {buffers_.data() + i * buffer_size_, buffer_size_};
    messages_[i].msg_hdr.msg_iov = &iovecs_[i];
    messages_[i].msg_hdr.msg_iovlen = 1;
  }
  if (filter_ || iperf2_) sources_.assign(batch, SocketAddress{});
  return ok();
}

bool EpollUdpReceiver::drain(Socket& socket) {
  const CallTimer timer(context_.latency_period);  // -lm: one recvmmsg is one call
  for (int turn = 0; turn < batches_per_turn; ++turn) {
    for (uint32_t i = 0; i < batch; ++i) {
      msghdr& h = messages_[i].msg_hdr;
      h.msg_control = control_.data() + i * control_bytes;
      h.msg_controllen = control_bytes;
      h.msg_flags = 0;
      if (!sources_.empty()) {
        h.msg_name = sources_[i].get();
        h.msg_namelen = sizeof sources_[i].storage;
      }
    }
    const std::size_t room = socket.header_only ? header_buffer : full_buffer;
    for (uint32_t i = 0; i < batch; ++i) iovecs_[i].iov_len = room;
    const uint64_t started = timer.stamp();
    const int n = recvmmsg(socket.fd.get(), messages_.data(), batch,
                           MSG_DONTWAIT | (socket.header_only ? MSG_TRUNC : 0), nullptr);
    if (n > 0) timer.record(context_.counters[socket.slot], started);
    if (n < 0) {
      if (errno != EAGAIN && errno != EINTR && errno != ECONNREFUSED)
        record_error(std::string("UDP recvmmsg: ") + std::strerror(errno));
      return false;
    }
    if (n == 0) return false;
    on_data(socket);  // -N: the first datagram starts the clock
    const uint64_t now = monotonic_ns();
    uint64_t bytes = 0;
    bool any_data = false;  // not only count mode's end markers
    for (int i = 0; i < n; ++i) {
      const std::size_t length = messages_[i].msg_len;
      const unsigned char* data = buffers_.data() + static_cast<std::size_t>(i) * buffer_size_;
      msghdr& h = messages_[i].msg_hdr;
      if (filter_ && !context_.admission->admit_datagram(sources_[i])) continue;
      if (iperf2_) {
        sources_[i].length = h.msg_namelen;
        socket.accounting->set_source(iperf2_flow_of(sources_[i]), sources_[i], now);
      }
      ReceiveInfo info;
      for (cmsghdr* c = CMSG_FIRSTHDR(&h); c != nullptr; c = CMSG_NXTHDR(&h, c))
        read_receive_cmsg(*c, info);
      const std::size_t segment = info.segment > 0 ? info.segment : length;
      const uint64_t at = info.receive_ns > 0 ? info.receive_ns : now;
      const std::size_t data_bytes =
          socket.accounting->on_buffer(data, std::min(length, room), length, segment, at);
      bytes += data_bytes;
      any_data = any_data || data_bytes > 0 || length == 0;
      gives_up_gro(socket, length, segment);  // the next recvmmsg reads headers only
      if (iperf2_) iperf2_server_->after_datagram(socket, sources_[i], report_);
    }
    if (any_data) context_.counters[socket.slot].add(bytes);
    socket.accounting->announce_ended();  // count mode: after the bytes before the marker
    if (static_cast<uint32_t>(n) < batch) return false;
  }
  return true;
}

void EpollUdpReceiver::run(const std::atomic<bool>& stop) {
  epoll_event events[64];
  std::vector<uint32_t> busy;  // sockets that still had data after their turn
  while (!stop.load(std::memory_order_relaxed)) {
    const int n = epoll_wait(epoll_.get(), events, 64, busy.empty() ? epoll_wait_ms : 0);
    for (int i = 0; i < n; ++i) {
      const uint32_t index = events[i].data.u32;
      if (std::find(busy.begin(), busy.end(), index) == busy.end()) busy.push_back(index);
    }
    for (size_t i = 0; i < busy.size();) {
      if (drain(sockets_[busy[i]])) {
        ++i;
      } else {
        busy[i] = busy.back();
        busy.pop_back();
      }
    }
    sweep_iperf2_streams();
  }
}

WorkerReport EpollUdpReceiver::finish() { return finish_report(); }

}  // namespace xttcp
