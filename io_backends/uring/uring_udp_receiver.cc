#include "io_backends/uring/uring_udp_receiver.hh"

#include <netinet/udp.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "io_backends/common/iperf2_udp_server.hh"
#include "io_backends/common/udp_socket.hh"
#include "io_backends/uring/user_data.hh"

namespace xttcp {

namespace {

constexpr uint16_t full_group = 0;    // buffers that hold the largest datagram or a GRO train
constexpr uint16_t header_group = 1;  // header-only reads (MSG_TRUNC)
constexpr uint32_t ring_buffers = 256;
constexpr std::size_t full_payload = 65536;  // the largest datagram, or a GRO train
constexpr std::size_t header_payload = 64;   // header-only reads
constexpr std::size_t control_bytes = udp_control_bytes;

}  // namespace

Status UringUdpReceiver::open() {
  const TestSpec& spec = *context_.spec;
  // io_uring waits with its own poll; blocking mode keeps the kernel from answering EAGAIN.
  if (Status opened = open_sockets(true); !opened) return opened;
  template_ = msghdr{};
  template_.msg_controllen = control_bytes;
  // --allow: every datagram's source comes with it (io_uring_recvmsg_out names it) and is checked.
  // The iperf2 dialect: the source names the flow and gets the FIN's report.
  if (filter_ || iperf2_) template_.msg_namelen = sizeof(sockaddr_storage);
  unsigned sq_entries = 64;
  while (sq_entries < sockets_.size() * 2 && sq_entries < 32768) sq_entries *= 2;
  if (Status ring = ring_.init(sq_entries, ring_buffers * 4, caps_, spec.uring.sqpoll); !ring)
    return ring.error();
  const std::size_t header = sizeof(io_uring_recvmsg_out) + template_.msg_namelen + control_bytes;
  if (Status init = full_buffers_.init(ring_buffers, static_cast<uint32_t>(header + full_payload));
      !init)
    return init.error();
  if (Status reg = full_buffers_.register_with(ring_.get(), full_group); !reg) return reg.error();
  if (!skip_copy_) return ok();
  if (Status init =
          header_buffers_.init(ring_buffers, static_cast<uint32_t>(header + header_payload));
      !init)
    return init.error();
  return header_buffers_.register_with(ring_.get(), header_group);
}

// The datagram's source, as the kernel wrote it before the payload (--allow, iperf2).
SocketAddress UringUdpReceiver::source_of(io_uring_recvmsg_out& out) {
  SocketAddress source;
  const std::size_t length = std::min<std::size_t>(out.namelen, sizeof source.storage);
  std::memcpy(&source.storage, io_uring_recvmsg_name(&out), length);
  source.length = static_cast<socklen_t>(length);
  return source;
}

void UringUdpReceiver::cancel_receive(uint32_t index) {
  if (io_uring_sqe* sqe = ring_.sqe()) {
    io_uring_prep_cancel64(sqe, uring::pack(index, uring::Op::recv), 0);
    sqe->user_data = uring::pack(0, uring::Op::cancel);
  }
}

void UringUdpReceiver::arm(uint32_t index) {
  Socket& socket = sockets_[index];
  io_uring_sqe* sqe = ring_.sqe();
  if (sqe == nullptr) {
    record_error("io_uring: the kernel takes no more submissions");
    return;
  }
  io_uring_prep_recvmsg_multishot(sqe, socket.fd.get(), &template_,
                                  socket.header_only ? static_cast<unsigned>(MSG_TRUNC) : 0u);
  sqe->flags |= IOSQE_BUFFER_SELECT;
  sqe->buf_group = socket.header_only ? header_group : full_group;
  sqe->user_data = uring::pack(index, uring::Op::recv);
  socket.armed = true;
  socket.armed_header_only = socket.header_only;
  ++armed_;
}

void UringUdpReceiver::on_completion(const io_uring_cqe& cqe) {
  if (uring::op_of(cqe.user_data) != uring::Op::recv) return;
  const uint32_t index = uring::index_of(cqe.user_data);
  Socket& socket = sockets_[index];
  const bool more = cqe.flags & IORING_CQE_F_MORE;
  if (!more) {
    socket.armed = false;
    --armed_;
  }
  if (cqe.flags & IORING_CQE_F_BUFFER) {
    const auto bid = static_cast<uint16_t>(cqe.flags >> IORING_CQE_BUFFER_SHIFT);
    BufferRing& ring = socket.armed_header_only ? header_buffers_ : full_buffers_;
    unsigned char* buffer = ring.buffer(bid);
    if (cqe.res > 0) {
      msghdr h = template_;
      io_uring_recvmsg_out* out = io_uring_recvmsg_validate(buffer, cqe.res, &h);
      SocketAddress source;
      if (out != nullptr && template_.msg_namelen > 0) source = source_of(*out);
      if (out != nullptr && filter_ && !context_.admission->admit_datagram(source)) out = nullptr;
      if (out != nullptr) {
        if (iperf2_) socket.accounting->set_source(iperf2_flow_of(source), source, turn_ns_);
        const auto* payload = static_cast<const unsigned char*>(io_uring_recvmsg_payload(out, &h));
        const std::size_t in_buffer = io_uring_recvmsg_payload_length(out, cqe.res, &h);
        const std::size_t length = out->payloadlen;
        ReceiveInfo info;
        for (cmsghdr* c = io_uring_recvmsg_cmsg_firsthdr(out, &h); c != nullptr;
             c = io_uring_recvmsg_cmsg_nexthdr(out, &h, c))
          read_receive_cmsg(*c, info);
        const std::size_t segment = info.segment > 0 ? info.segment : length;
        on_data(socket);  // -N: the first datagram starts the clock
        const std::size_t data_bytes =
            socket.accounting->on_buffer(payload, in_buffer, length, segment,
                                         info.receive_ns > 0 ? info.receive_ns : monotonic_ns());
        if (data_bytes > 0 || length == 0) context_.counters[socket.slot].add(data_bytes);
        if (iperf2_) iperf2_server_->after_datagram(socket, source, report_);
        socket.accounting->announce_ended();  // count mode: after the bytes before the marker
        // Header-only from now on: end the receive on full buffers; it is re-armed on headers.
        if (gives_up_gro(socket, length, segment) && socket.armed) cancel_receive(index);
      }
    }
    ring.recycle(bid);
  }
  const int res = cqe.res;
  if (res < 0 && res != -ENOBUFS && res != -ECANCELED && res != -EINTR && res != -EAGAIN &&
      res != -ECONNREFUSED) {
    record_error(std::string("UDP recvmsg: ") + std::strerror(-res));
    return;
  }
  // ENOBUFS: the buffer ring ran dry; the recycled buffers are published before the re-arm.
  if (!more && !stopping_) arm(index);
}

void UringUdpReceiver::reap() {
  ring_.reap([&](io_uring_cqe& done) { on_completion(done); });
  full_buffers_.publish();
  if (skip_copy_) header_buffers_.publish();
}

void UringUdpReceiver::run(const std::atomic<bool>& stop) {
  for (uint32_t i = 0; i < sockets_.size(); ++i) arm(i);
  while (!stop.load(std::memory_order_relaxed)) {
    if (const int r = ring_.submit_and_wait(ring_wait_ns); r < 0) {
      record_error(std::string("io_uring_enter: ") + std::strerror(-r));
      break;
    }
    if (iperf2_) turn_ns_ = monotonic_ns();
    reap();
    sweep_iperf2_streams();
  }
  // Stop: end every multishot receive, counting what they still bring, bounded.
  stopping_ = true;
  for (uint32_t i = 0; i < sockets_.size(); ++i)
    if (sockets_[i].armed) cancel_receive(i);
  const auto deadline = std::chrono::steady_clock::now() + ring_drain_budget;
  while (armed_ > 0 && std::chrono::steady_clock::now() < deadline) {
    ring_.submit_and_wait(ring_drain_wait_ns);
    reap();
  }
  if (armed_ > 0) {
    full_buffers_.leak();
    header_buffers_.leak();
  }
}

WorkerReport UringUdpReceiver::finish() { return finish_report(); }

}  // namespace xttcp
