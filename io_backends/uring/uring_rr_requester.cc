#include "io_backends/uring/uring_rr_requester.hh"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "engine/net/socket_setup.hh"
#include "io_backends/common/connect_flows.hh"
#include "io_backends/common/rr_sockets.hh"
#include "io_backends/uring/user_data.hh"

namespace xttcp {

namespace {
constexpr uint64_t max_requester_buffer = 1 << 20;
}

Status UringRrRequester::open() {
  const TestSpec& spec = *context_.spec;
  request_ = rr_request_bytes(spec);
  response_ = rr_response_bytes(spec);
  depth_ = spec.rr.depth;
  udp_ = spec.workload.protocol == Protocol::udp;
  out_ = IoBuffer(std::min<uint64_t>(uint64_t{request_} * depth_, max_requester_buffer), 'A');
  if (!out_) return fail("cannot allocate the --rr buffers");
  auto opened = open_rr_requesters(context_, udp_, report_.notes);
  if (!opened) return opened.error();
  std::vector<UniqueFd> sockets = std::move(*opened);
  // A RECV and up to depth SENDs per flow.
  const std::size_t requests = sockets.size() * (uint64_t{depth_} + 1);
  if (Status ring = ring_.init(ring_entries_for(requests), ring_entries_for(2 * requests), caps_,
                               spec.uring.sqpoll);
      !ring)
    return ring.error();
  if (spec.io.busy_poll_us > 0) report_.notes.push_back(ring_.register_napi(spec.io.busy_poll_us));
  const std::size_t in_size =
      udp_ ? response_ : std::min<uint64_t>(uint64_t{response_} * depth_, max_requester_buffer);
  for (size_t i = 0; i < sockets.size(); ++i) {
    const int one = 1;
    if (!udp_ && setsockopt(sockets[i].get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0)
      return fail(std::string("TCP_NODELAY: ") + std::strerror(errno));
    // io_uring waits for readiness itself; a blocking socket keeps its requests queued there.
    if (Status made = set_nonblocking(sockets[i].get(), false); !made) return made.error();
    Flow flow;
    flow.fd = std::move(sockets[i]);
    flow.slot = context_.plan->flows[i].slot;
    flow.in.resize(std::max<std::size_t>(in_size, rr_limits::udp_min_bytes));
    flow.stamps = StampQueue(depth_);
    flow.responses = MessageCounter(response_);
    if (udp_) {
      flow.requests.assign(std::size_t{request_} * depth_, 'A');
      prove_rr_requests(flow.requests.data(), depth_, request_, context_, flow.slot);
    }
    flow.window = UdpRrWindow(depth_, loss_pause_ticks_);
    flows_.push_back(std::move(flow));
  }
  if (context_.open_connections && !udp_)
    *context_.open_connections += static_cast<int64_t>(flows_.size());
  report_.connections = static_cast<uint32_t>(flows_.size());
  return ok();
}

void UringRrRequester::fail_flow(Flow& flow, const char* call, int err) {
  if (flow.closed) return;
  flow.closed = true;
  if (context_.open_connections && !udp_) --*context_.open_connections;
  if (err == 0 || err == EPIPE || err == ECONNRESET || err == ECONNREFUSED) {
    ++report_.closed_by_peer;
    return;
  }
  if (report_.errors++ == 0) report_.first_error = std::string(call) + ": " + std::strerror(err);
}

void UringRrRequester::arm_recv(uint32_t index) {
  Flow& flow = flows_[index];
  if (flow.closed || flow.recv_armed || stopping_) return;
  io_uring_sqe* sqe = ring_.sqe();
  if (sqe == nullptr) return fail_flow(flow, "io_uring", EBUSY);
  io_uring_prep_recv(sqe, flow.fd.get(), flow.in.data(), flow.in.size(), 0);
  sqe->user_data = uring::pack(index, uring::Op::recv);
  flow.recv_armed = true;
  ++armed_;
}

void UringRrRequester::tcp_send(uint32_t index) {
  Flow& flow = flows_[index];
  if (flow.closed || flow.sends_armed > 0 || flow.unsent == 0 || stopping_) return;
  io_uring_sqe* sqe = ring_.sqe();
  if (sqe == nullptr) return fail_flow(flow, "io_uring", EBUSY);
  const auto length = static_cast<unsigned>(std::min<uint64_t>(flow.unsent, out_.size()));
  io_uring_prep_send(sqe, flow.fd.get(), out_.data(), length, MSG_NOSIGNAL);
  sqe->user_data = uring::pack(index, uring::Op::send);
  ++flow.sends_armed;
  ++armed_;
}

void UringRrRequester::udp_refill(uint32_t index, uint64_t now) {
  Flow& flow = flows_[index];
  while (flow.window.room() && !flow.closed && !stopping_) {
    io_uring_sqe* sqe = ring_.sqe();
    if (sqe == nullptr) return fail_flow(flow, "io_uring", EBUSY);
    // A slot is reused only once its request was answered or given up (200 ms later).
    unsigned char* datagram = flow.requests.data() + std::size_t{flow.next_request} * request_;
    flow.next_request = (flow.next_request + 1) % depth_;
    write_rr_stamp(datagram, clock_.now());
    io_uring_prep_send(sqe, flow.fd.get(), datagram, request_, 0);
    sqe->user_data = uring::pack(index, uring::Op::send);
    ++flow.sends_armed;
    ++armed_;
    flow.window.sent();
  }
  flow.window.refilled(now);
}

void UringRrRequester::on_recv(uint32_t index, int res) {
  Flow& flow = flows_[index];
  if (res <= 0) {
    if (res == -EINTR || res == -EAGAIN || (udp_ && res == -ECONNREFUSED)) return arm_recv(index);
    if (res == -ECANCELED) return;
    return fail_flow(flow, "recv", res == 0 ? 0 : -res);
  }
  if (udp_) {
    const uint64_t now = clock_.now();
    const uint64_t transaction_bytes = uint64_t{request_} + response_;
    const uint64_t stamp =
        static_cast<size_t>(res) >= rr_limits::udp_min_bytes ? read_rr_stamp(flow.in.data()) : 0;
    if (flow.window.answer(stamp, now)) {  // else given up as lost, or not ours
      context_.rr_histograms[flow.slot].record(clock_.to_ns(now - stamp));
      context_.counters[flow.slot].add(transaction_bytes);
      udp_refill(index, now);
    }
  } else {
    complete_tcp_responses(flow, static_cast<uint64_t>(res), context_, clock_, request_, response_);
    tcp_send(index);
  }
  arm_recv(index);
}

void UringRrRequester::on_completion(const io_uring_cqe& cqe) {
  const uint32_t index = uring::index_of(cqe.user_data);
  const uring::Op op = uring::op_of(cqe.user_data);
  if (op == uring::Op::cancel) return;
  --armed_;
  Flow& flow = flows_[index];
  if (op == uring::Op::recv) {
    flow.recv_armed = false;
    return on_recv(index, cqe.res);
  }
  --flow.sends_armed;  // Op::send
  if (cqe.res < 0) {
    if (cqe.res == -ECANCELED) return;
    // UDP: a refused or dropped datagram is a lost request (the loss pause replaces it).
    if (!udp_ || (cqe.res != -ECONNREFUSED && cqe.res != -EAGAIN && cqe.res != -ENOBUFS))
      fail_flow(flow, "send", -cqe.res);
    return;
  }
  if (!udp_) {
    flow.unsent -= std::min<uint64_t>(flow.unsent, static_cast<uint64_t>(cqe.res));
    tcp_send(index);
  }
}

void UringRrRequester::run(const std::atomic<bool>& stop) {
  const uint64_t start = clock_.now();
  for (uint32_t i = 0; i < flows_.size(); ++i) {
    if (udp_) {
      udp_refill(i, start);
    } else {
      for (uint32_t d = 0; d < depth_; ++d) flows_[i].stamps.push(start);
      flows_[i].unsent = uint64_t{request_} * depth_;
      tcp_send(i);
    }
    arm_recv(i);
  }
  while (!stop.load(std::memory_order_relaxed)) {
    if (const int r = ring_.submit_and_wait(ring_wait_ns); r < 0) {
      if (report_.errors++ == 0)
        report_.first_error = std::string("io_uring_enter: ") + std::strerror(-r);
      break;
    }
    ring_.reap([&](io_uring_cqe& done) { on_completion(done); });
    if (!udp_) continue;
    const uint64_t now = clock_.now();
    for (uint32_t i = 0; i < flows_.size(); ++i) {
      Flow& flow = flows_[i];
      if (flow.closed || !flow.window.quiet(now)) continue;
      report_.rr_lost += flow.window.give_up(now);
      udp_refill(i, now);
    }
  }
  cancel_and_drain();
}

// At stop: end every RECV still armed and wait for every request, bounded by ring_drain_budget,
// so none outlives run() (nor writes into a buffer after it).
void UringRrRequester::cancel_and_drain() {
  stopping_ = true;
  for (uint32_t i = 0; i < flows_.size(); ++i) {
    if (!flows_[i].recv_armed) continue;
    io_uring_sqe* sqe = ring_.sqe();
    if (sqe == nullptr) break;
    io_uring_prep_cancel64(sqe, uring::pack(i, uring::Op::recv), 0);
    sqe->user_data = uring::pack(0, uring::Op::cancel);
  }
  const auto deadline = std::chrono::steady_clock::now() + ring_drain_budget;
  while (armed_ > 0 && std::chrono::steady_clock::now() < deadline) {
    ring_.submit_and_wait(ring_drain_wait_ns);
    ring_.reap([&](io_uring_cqe& done) { on_completion(done); });
  }
}

WorkerReport UringRrRequester::finish() {
  if (!udp_)
    for (size_t i = 0; i < flows_.size(); ++i) {
      ConnectionStats stats = sender_connection_stats(context_, i, flows_[i].fd.get());
      stats.bytes = read(context_.counters[flows_[i].slot]).bytes;
      report_.connection_stats.push_back(std::move(stats));
    }
  return report_;
}

}  // namespace xttcp
