#include "io_backends/uring/uring_rr_responder.hh"

#include <netinet/tcp.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "engine/net/socket_setup.hh"
#include "engine/stats/tcp_info.hh"
#include "io_backends/common/rr_sockets.hh"
#include "io_backends/uring/accepted_admission.hh"
#include "io_backends/uring/user_data.hh"

namespace xttcp {

namespace {
constexpr std::size_t connection_buffer = 16 * 1024;
constexpr std::size_t max_responder_buffer = 1 << 20;
constexpr unsigned max_connections_in_ring = 4096;
}  // namespace

Status UringRrResponder::open() {
  const TestSpec& spec = *context_.spec;
  request_ = rr_request_bytes(spec);
  response_ = rr_response_bytes(spec);
  udp_ = spec.workload.protocol == Protocol::udp;
  filter_ = filters_datagrams(context_);
  gate_ = rr_udp_gate(context_, request_, response_);
  out_ = IoBuffer(std::max<std::size_t>(connection_buffer,
                                        std::min<std::size_t>(response_, max_responder_buffer)),
                  'A');
  if (!out_) return fail("cannot allocate the --rr buffers");
  auto sockets = udp_ ? open_rr_udp_responders(context_) : open_rr_tcp_listeners(context_);
  if (!sockets) return sockets.error();
  const unsigned entries = ring_entries_for(max_connections_in_ring);
  if (Status ring = ring_.init(entries, 2 * entries, caps_, spec.uring.sqpoll); !ring)
    return ring.error();
  if (spec.io.busy_poll_us > 0) report_.notes.push_back(ring_.register_napi(spec.io.busy_poll_us));
  endpoints_.resize(sockets->size());
  for (size_t i = 0; i < sockets->size(); ++i) {
    Endpoint& e = endpoints_[i];
    if (Status made = set_nonblocking((*sockets)[i].get(), false); !made) return made.error();
    e.fd = std::move((*sockets)[i]);
    e.slot = context_.plan->flows[i].slot;
    if (!udp_) continue;
    e.in.resize(std::max<std::size_t>(request_, 64 * 1024));
    e.out.assign(std::max<uint32_t>(response_, rr_limits::udp_min_bytes), 'A');
  }
  return ok();
}

void UringRrResponder::record_error(const std::string& line) {
  if (stopping_) return;  // what a cancelled request reports is no error
  if (report_.errors++ == 0) report_.first_error = line;
}

void UringRrResponder::hold_response() const {
  if (context_.spec->rr.delay_us > 0)
    std::this_thread::sleep_for(std::chrono::microseconds(context_.spec->rr.delay_us));
}

void UringRrResponder::arm_endpoint(uint32_t index) {
  Endpoint& e = endpoints_[index];
  if (e.armed || stopping_) return;
  io_uring_sqe* sqe = ring_.sqe();
  if (sqe == nullptr) return record_error("io_uring: the kernel takes no more submissions");
  if (udp_) {
    e.in_iov = {e.in.data(), e.in.size()};
    e.in_msg = {};
    e.in_msg.msg_name = e.from.get();
    e.in_msg.msg_namelen = sizeof e.from.storage;
    e.in_msg.msg_iov = &e.in_iov;
    e.in_msg.msg_iovlen = 1;
    io_uring_prep_recvmsg(sqe, e.fd.get(), &e.in_msg, 0);
    sqe->user_data = uring::pack(index, uring::Op::recv);
  } else {
    io_uring_prep_accept(sqe, e.fd.get(), nullptr, nullptr, SOCK_CLOEXEC);
    sqe->user_data = uring::pack(index, uring::Op::accept);
  }
  e.armed = true;
  ++armed_;
}

void UringRrResponder::arm_recv(uint32_t index) {
  Connection& c = connections_[index];
  if (c.closed || stopping_) return;
  io_uring_sqe* sqe = ring_.sqe();
  if (sqe == nullptr) return record_error("io_uring: the kernel takes no more submissions");
  io_uring_prep_recv(sqe, c.fd.get(), c.in.data(), c.in.size(), 0);
  // Connections use the upper half of the index space; endpoints the lower.
  sqe->user_data = uring::pack(index | (1u << 23), uring::Op::recv);
  ++c.armed;
  ++armed_;
}

void UringRrResponder::send_responses(uint32_t index) {
  Connection& c = connections_[index];
  if (c.closed || c.unsent == 0 || stopping_ || c.armed > 1) return;  // one SEND at a time
  io_uring_sqe* sqe = ring_.sqe();
  if (sqe == nullptr) return record_error("io_uring: the kernel takes no more submissions");
  const auto length = static_cast<unsigned>(std::min<uint64_t>(c.unsent, out_.size()));
  io_uring_prep_send(sqe, c.fd.get(), out_.data(), length, MSG_NOSIGNAL);
  sqe->user_data = uring::pack(index | (1u << 23), uring::Op::send);
  ++c.armed;
  ++armed_;
}

void UringRrResponder::close_connection(uint32_t index, int err) {
  Connection& c = connections_[index];
  if (!c.closed) {
    c.closed = true;
    if (stopping_) {
      // the test is over: not the peer's doing
    } else if (err == 0 || err == ECONNRESET || err == EPIPE)
      ++report_.closed_by_peer;
    else
      record_error(std::string("recv/send: ") + std::strerror(err));
    if (!context_.spec->control.hold)  // -H: keeping every connection's would grow forever
      report_.connection_stats.push_back(read_tcp_info(c.fd.get(), c.bytes));
    ::shutdown(c.fd.get(), SHUT_RDWR);  // ends its RECV in the kernel
  }
  if (c.armed == 0) {
    c.fd.reset();
    free_.push_back(index);
  }
}

void UringRrResponder::on_accept(uint32_t index, int res) {
  Endpoint& listener = endpoints_[index];
  listener.armed = false;
  if (res < 0) {
    if (res != -ECANCELED && res != -EINTR && res != -ECONNABORTED)
      record_error(std::string("accept: ") + std::strerror(-res));
    if (res != -ECANCELED) arm_endpoint(index);
    return;
  }
  if (!admit_accepted(context_, res)) {  // --allow / --max-clients: counted there
    ::close(res);
    return arm_endpoint(index);
  }
  const int one = 1;
  setsockopt(res, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  uint32_t slot;
  if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
  } else {
    slot = static_cast<uint32_t>(connections_.size());
    connections_.emplace_back();
  }
  Connection& c = connections_[slot];
  c = Connection{};
  c.fd = UniqueFd(res);
  c.slot = listener.slot;
  c.requests = MessageCounter(request_);
  c.in.resize(connection_buffer);
  ++report_.connections;
  if (context_.on_accept) context_.on_accept();
  report_data_connection(context_, res);
  arm_recv(slot);
  arm_endpoint(index);
}

void UringRrResponder::on_recv(uint32_t index, int res) {
  Connection& c = connections_[index];
  if (res <= 0) {
    if (res == -EINTR || res == -EAGAIN) return arm_recv(index);
    return close_connection(index, res == -ECANCELED ? 0 : -res);
  }
  c.bytes += static_cast<uint64_t>(res);
  const uint64_t requests = c.requests.add(static_cast<uint64_t>(res));
  if (requests > 0) {
    FlowCounter& counter = context_.counters[c.slot];
    for (uint64_t i = 0; i < requests; ++i) counter.add(uint64_t{request_} + response_);
    c.unsent += requests * response_;
    hold_response();
  }
  arm_recv(index);
  send_responses(index);
}

void UringRrResponder::on_datagram(uint32_t index, int res) {
  Endpoint& e = endpoints_[index];
  e.armed = false;
  if (res < 0) {
    if (res == -ECANCELED) return;
    if (res != -EINTR && res != -EAGAIN && res != -ECONNREFUSED)
      record_error(std::string("recvmsg: ") + std::strerror(-res));
    return arm_endpoint(index);
  }
  e.from.length = e.in_msg.msg_namelen;
  // --allow: a request from elsewhere gets no answer (counted by the admission).
  if (filter_ && !context_.admission->admit_datagram(e.from)) return arm_endpoint(index);
  // Not a request, or a larger answer than it brought to a source that proved nothing.
  const auto received = static_cast<std::size_t>(res);
  if (gate_.answer(e.in.data(), std::min(received, e.in.size()), received) == 0)
    return arm_endpoint(index);
  if (!e.seen_data) {
    e.seen_data = true;
    if (context_.on_accept) context_.on_accept();
  }
  std::memcpy(e.out.data(), e.in.data(),
              std::min<std::size_t>(static_cast<std::size_t>(res), rr_limits::udp_min_bytes));
  hold_response();
  io_uring_sqe* sqe = ring_.sqe();
  if (sqe == nullptr) return record_error("io_uring: the kernel takes no more submissions");
  e.out_iov = {e.out.data(), response_};
  e.out_msg = {};
  e.out_msg.msg_name = e.from.get();
  e.out_msg.msg_namelen = e.in_msg.msg_namelen;
  e.out_msg.msg_iov = &e.out_iov;
  e.out_msg.msg_iovlen = 1;
  io_uring_prep_sendmsg(sqe, e.fd.get(), &e.out_msg, 0);
  sqe->user_data = uring::pack(index, uring::Op::send);
  e.armed = true;  // the answer goes out before the next RECVMSG (they share `from`)
  ++armed_;
  context_.counters[e.slot].add(static_cast<uint64_t>(res) + response_);
}

void UringRrResponder::on_completion(const io_uring_cqe& cqe) {
  const uint32_t packed = uring::index_of(cqe.user_data);
  const uring::Op op = uring::op_of(cqe.user_data);
  if (op == uring::Op::cancel) return;
  --armed_;
  if (op == uring::Op::accept) return on_accept(packed, cqe.res);
  if (!(packed & (1u << 23))) {  // a UDP socket
    if (op == uring::Op::recv) return on_datagram(packed, cqe.res);
    endpoints_[packed].armed = false;  // its answer is out
    if (cqe.res < 0 && cqe.res != -ECONNREFUSED && cqe.res != -ECANCELED)
      record_error(std::string("sendmsg: ") + std::strerror(-cqe.res));
    return arm_endpoint(packed);
  }
  const uint32_t index = packed & ~(1u << 23);
  Connection& c = connections_[index];
  --c.armed;
  if (c.closed) return close_connection(index, 0);
  if (op == uring::Op::recv) return on_recv(index, cqe.res);
  if (cqe.res < 0) return close_connection(index, cqe.res == -ECANCELED ? 0 : -cqe.res);
  c.unsent -= std::min<uint64_t>(c.unsent, static_cast<uint64_t>(cqe.res));
  send_responses(index);
}

void UringRrResponder::run(const std::atomic<bool>& stop) {
  for (uint32_t i = 0; i < endpoints_.size(); ++i) arm_endpoint(i);
  while (!stop.load(std::memory_order_relaxed)) {
    if (const int r = ring_.submit_and_wait(ring_wait_ns); r < 0) {
      record_error(std::string("io_uring_enter: ") + std::strerror(-r));
      break;
    }
    ring_.reap([&](io_uring_cqe& done) { on_completion(done); });
  }
  cancel_and_drain();
}

// At stop: cancel every request still in the kernel and wait for them, bounded by
// ring_drain_budget, so none outlives run().
void UringRrResponder::cancel_and_drain() {
  stopping_ = true;
  auto cancel = [&](uint64_t user_data) {
    io_uring_sqe* sqe = ring_.sqe();
    if (sqe == nullptr) return;
    io_uring_prep_cancel64(sqe, user_data, 0);
    sqe->user_data = uring::pack(0, uring::Op::cancel);
  };
  for (uint32_t i = 0; i < endpoints_.size(); ++i)
    if (endpoints_[i].armed) cancel(uring::pack(i, udp_ ? uring::Op::recv : uring::Op::accept));
  for (uint32_t i = 0; i < connections_.size(); ++i)
    if (connections_[i].armed > 0) cancel(uring::pack(i | (1u << 23), uring::Op::recv));
  const auto deadline = std::chrono::steady_clock::now() + ring_drain_budget;
  while (armed_ > 0 && std::chrono::steady_clock::now() < deadline) {
    ring_.submit_and_wait(ring_drain_wait_ns);
    ring_.reap([&](io_uring_cqe& done) { on_completion(done); });
  }
}

WorkerReport UringRrResponder::finish() {
  for (const Connection& c : connections_)
    if (c.fd.valid() && !c.closed)
      report_.connection_stats.push_back(read_tcp_info(c.fd.get(), c.bytes));
  gate_.note(report_);
  return report_;
}

}  // namespace xttcp
