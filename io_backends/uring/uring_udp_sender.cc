#include "io_backends/uring/uring_udp_sender.hh"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "engine/udp/datagram_header.hh"
#include "io_backends/common/iperf2_udp_client.hh"
#include "io_backends/common/udp_accounting.hh"
#include "io_backends/send_rate.hh"
#include "io_backends/uring/user_data.hh"

namespace xttcp {

namespace {

constexpr char compat_fill = 'B';  // NTTTCP-for-Linux's UDP payload

}  // namespace

Status UringUdpSender::open() {
  const TestSpec& spec = *context_.spec;
  // io_uring waits with its own poll; blocking mode keeps the kernel from answering EAGAIN.
  if (Status opened = open_flows(true); !opened) return opened;
  batch_ = gso_segments_ > 0 ? gso_segments_ : 1;
  // ~256 KiB in flight per flow, in 2..32 linked sends.
  region_bytes_ = static_cast<std::size_t>(batch_) * datagram_;
  // Paced: one send per chain, stamped and armed when the pacer lets it go (a chain's later
  // sends would leave later than their stamp says).
  depth_ =
      sender_worker_rate(spec, flows_.size()) > 0
          ? 1
          : static_cast<uint32_t>(std::clamp<std::size_t>((256u << 10) / region_bytes_, 2, 32));
  buffer_ = IoBuffer(flows_.size() * depth_ * region_bytes_, compat_fill);
  if (!buffer_) return fail("cannot allocate the UDP send buffers");
  if (head_ == udp::DatagramLayout::iperf2)
    write_iperf2_udp_headers(spec, buffer_.data(), datagram_,
                             static_cast<uint32_t>(buffer_.size() / datagram_));
  const unsigned entries = ring_entries_for(flows_.size() * depth_ + 8);
  return ring_.init(entries, entries * 2, caps_, spec.uring.sqpoll);
}

void UringUdpSender::arm_chain(uint32_t index, uint32_t per_send) {
  Flow& flow = flows_[index];
  // A chain must not be split by a submission in its middle: make room for all of it first.
  io_uring* const ring = ring_.get();
  if (io_uring_sq_space_left(ring) < depth_) io_uring_submit(ring);
  if (io_uring_sq_space_left(ring) < depth_) {
    flow.closed = true;
    record_error("io_uring: the kernel takes no more submissions");
    return;
  }
  const uint64_t now = monotonic_ns();
  flow.chain_first = flow.next_sequence;
  flow.chain_sent = 0;
  // Count mode: the chain stops at the budget (flow.left is UINT64_MAX in a timed run).
  const auto datagrams = static_cast<uint32_t>(std::min<uint64_t>(depth_ * per_send, flow.left));
  const uint32_t sends = (datagrams + per_send - 1) / per_send;
  for (uint32_t send = 0; send < sends; ++send) {
    io_uring_sqe* sqe = io_uring_get_sqe(ring);  // room was made above
    unsigned char* data = region(index, send);
    const uint64_t first = flow.chain_first + uint64_t{send} * per_send;
    const uint32_t count = std::min(per_send, datagrams - send * per_send);
    stamp(data, count, flow.flow_id, flow.token, first, now);
    io_uring_prep_send(sqe, flow.fd.get(), data, static_cast<std::size_t>(count) * datagram_, 0);
    if (send + 1 < sends) sqe->flags |= IOSQE_IO_LINK;
    sqe->user_data = uring::pack(index, uring::Op::send);
    ++flow.in_flight;
    ++in_flight_;
  }
  flow.next_sequence = flow.chain_first + datagrams;
}

template <bool Paced>
void UringUdpSender::on_completion(const io_uring_cqe& cqe, Pacer& pacer, uint32_t per_send) {
  if (uring::op_of(cqe.user_data) != uring::Op::send) return;
  const uint32_t index = uring::index_of(cqe.user_data);
  Flow& flow = flows_[index];
  --flow.in_flight;
  --in_flight_;
  const int res = cqe.res;
  if (res > 0) {
    const uint64_t datagrams = gso_segments_ > 0 ? static_cast<uint64_t>(res) / datagram_ : 1;
    const uint64_t bytes = count_sent(flow, datagrams);
    flow.chain_sent += static_cast<uint32_t>(datagrams);
    if constexpr (Paced) pacer.after_write(bytes);
  } else if (res == -ECONNREFUSED) {
    ++refused_;  // ICMP port unreachable for an earlier datagram; NTTTCP goes on too
    flow.refused = true;
  } else if (res != -EAGAIN && res != -ENOBUFS && res != -EINTR && res != -ECANCELED && res < 0) {
    if (!flow.closed && budget_ > 0 && context_.on_flow_done)
      context_.on_flow_done();  // count mode: the run ends and reports the error
    flow.closed = true;
    record_error(std::string("UDP send: ") + std::strerror(-res));
  }
  if (flow.in_flight == 0) {
    // A linked chain sends a prefix of its datagrams (a failure cancels the rest): the unsent
    // numbers are used again, so no gap appears that was never a datagram.
    flow.next_sequence = flow.chain_first + flow.chain_sent;
    if (flow.refused) {  // nobody listens (yet): retry in a while, not in a tight loop
      flow.refused = false;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (flow.left == 0 && !flow.end.begun()) begin_end_markers(flow, ending_);  // count mode
    if (!flow.closed && !stopping_) arm_chain(index, per_send);
  }
}

template <bool Paced>
void UringUdpSender::send_loop(const std::atomic<bool>& stop, Pacer& pacer, uint32_t per_send) {
  io_uring* const ring = ring_.get();
  for (uint32_t i = 0; i < flows_.size(); ++i) arm_chain(i, per_send);
  while (!stop.load(std::memory_order_relaxed)) {
    __kernel_timespec wait{0, ring_wait_ns};
    if (ending_ > 0) {
      const uint64_t next_marker = send_end_markers(
          flows_, budget_, !native(), ending_,
          [this](Flow&) {
            if (context_.on_flow_done) context_.on_flow_done();
          },
          [this](const std::string& what) { record_error(what); });
      if (next_marker > 0 && next_marker < static_cast<uint64_t>(wait.tv_nsec))
        wait.tv_nsec = static_cast<long long>(next_marker);
    }
    io_uring_cqe* cqe = nullptr;
    const int r = io_uring_submit_and_wait_timeout(ring, &cqe, 1, &wait, nullptr);
    if (r < 0 && r != -ETIME && r != -EINTR && r != -EBUSY && r != -EAGAIN) {
      record_error(std::string("io_uring_enter: ") + std::strerror(-r));
      return;
    }
    ring_.reap([&](io_uring_cqe& done) { on_completion<Paced>(done, pacer, per_send); });
  }
}

// At stop: cancel what waits for socket space and reap, bounded; a cancelled send moved nothing.
void UringUdpSender::cancel_and_drain() {
  stopping_ = true;
  if (io_uring_sqe* sqe = ring_.sqe()) {
    io_uring_prep_cancel64(sqe, 0, IORING_ASYNC_CANCEL_ANY | IORING_ASYNC_CANCEL_ALL);
    sqe->user_data = uring::pack(0, uring::Op::cancel);
  }
  Pacer unpaced(0);
  const auto deadline = std::chrono::steady_clock::now() + ring_drain_budget;
  while (in_flight_ > 0 && std::chrono::steady_clock::now() < deadline) {
    ring_.submit_and_wait(ring_drain_wait_ns);
    ring_.reap([&](io_uring_cqe& done) { on_completion<false>(done, unpaced, batch_); });
  }
  // Sends the kernel still holds read this memory: never free it (ring teardown is asynchronous).
  if (in_flight_ > 0) buffer_.leak();
}

void UringUdpSender::run(const std::atomic<bool>& stop) {
  const TestSpec& spec = *context_.spec;
  const double bytes_per_second = sender_worker_rate(spec, flows_.size());  // -B, -thr
  if (bytes_per_second == 0) {
    Pacer unpaced(0);
    send_loop<false>(stop, unpaced, batch_);
  } else {
    // A chain is at most ~1 ms of this worker's rate (at least one datagram per send).
    const auto per_send = static_cast<uint32_t>(std::clamp(
        bytes_per_second / 1000.0 / datagram_ / depth_, 1.0, static_cast<double>(batch_)));
    Pacer pacer(bytes_per_second);
    pacer.set_stop(&stop);
    pacer.start();
    send_loop<true>(stop, pacer, per_send);
  }
  cancel_and_drain();
}

WorkerReport UringUdpSender::finish() {
  return finish_report(fmt::format(", {} linked per flow", depth_));
}

}  // namespace xttcp
