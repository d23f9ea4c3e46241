#include "io_backends/iocp/rr_requester.hh"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "io_backends/iocp/flow_sockets.hh"
#include "io_backends/iocp/io_request.hh"
#include "io_backends/iocp/tcp_connect.hh"
#include "io_backends/iocp/winsock_error.hh"

namespace xttcp::iocp {

namespace {

constexpr uint64_t max_tcp_buffer = 1 << 20;  // a TCP flow's requests or responses per call
// UDP send slots per flow: at most this many requests wait in the kernel at once (a slot is free
// again once its datagram left, before its answer comes), and all of a worker's slots together
// hold at most send_slot_memory bytes.
constexpr uint32_t max_send_slots = 64;
constexpr uint64_t send_slot_memory = 64u << 20;
constexpr unsigned char payload_byte = 'A';

// Winsock's word for an ICMP port unreachable about an earlier datagram (a connected UDP socket
// hears of it on its next call): the request is lost, the flow goes on.
bool refused(int error) { return error == WSAECONNRESET || error == WSAECONNREFUSED; }

}  // namespace

RrRequester::~RrRequester() {
  shut_down();
  if (!leak_) return;
  // The kernel may still write into these: never free them.
  for (auto& flow : flows_) static_cast<void>(flow.release());
  static_cast<void>(out_.release());
}

Status RrRequester::open() {
  const TestSpec& spec = *context_.spec;
  if (Status port = open_port(); !port) return port;
  request_ = rr_request_bytes(spec);
  response_ = rr_response_bytes(spec);
  depth_ = std::max<uint32_t>(spec.rr.depth, 1);
  udp_ = spec.workload.protocol == Protocol::udp;
  SocketOptions options = socket_options_of(spec);
  options.no_delay = true;  // TCP: a request leaves at once, not after the last one's ACK

  const std::vector<FlowPlan>& plans = context_.plan->flows;
  for (const FlowPlan& plan : plans) {
    auto flow = std::make_unique<Flow>();
    flow->slot = plan.slot;
    flows_.push_back(std::move(flow));
  }
  auto source_of = [&](std::size_t i) {
    SocketAddress source = context_.local;  // -a, else the wildcard
    source.set_port(plans[i].source_port);
    return source;
  };

  if (udp_) {
    for (std::size_t i = 0; i < plans.size(); ++i) {
      const SocketAddress remote = flow_address(context_, plans[i]);
      auto opened = open_udp_flow(port_, remote, source_of(i), options, false);
      if (!opened) return opened.error();
      record_opened(context_, opened->socket.get(), remote, true, plans[i].slot);
      flows_[i]->socket = std::move(opened->socket);
      flows_[i]->skips_port = opened->skips_port;
      flows_[i]->remote = remote.to_string();
    }
  } else {
    ConnectExFunction connect_ex;
    // One flow's socket, ready for ConnectEx. Again after a refused connect.
    auto open_target = [&](std::size_t i) -> Expected<ConnectTarget> {
      const SocketAddress remote = flow_address(context_, plans[i]);
      auto opened = open_tcp_flow(port_, remote, source_of(i), options, connect_ex);
      if (!opened) return opened.error();
      const ConnectTarget target{opened->socket.get(), opened->skips_port, remote};
      flows_[i]->socket = std::move(opened->socket);  // closes a refused one
      flows_[i]->skips_port = opened->skips_port;
      return target;
    };
    std::vector<ConnectTarget> targets;
    for (std::size_t i = 0; i < plans.size(); ++i) {
      auto target = open_target(i);
      if (!target) {
        flows_.clear();
        return target.error();
      }
      targets.push_back(*target);
    }
    if (Status connected = connect_all(port_, connect_ex, std::move(targets), open_target,
                                       std::chrono::seconds(spec.control.connect_timeout_s));
        !connected) {
      flows_.clear();  // nothing of them is pending any more: connect_all drained it
      return connected;
    }
    for (std::size_t i = 0; i < plans.size(); ++i) {
      Flow& flow = *flows_[i];
      record_opened(context_, flow.socket.get(), flow_address(context_, plans[i]), false,
                    plans[i].slot);
      flow.local = local_name(flow.socket.get());
      flow.remote = peer_name(flow.socket.get());
    }
    if (context_.open_connections)
      *context_.open_connections += static_cast<int64_t>(flows_.size());
  }

  if (udp_) {
    in_size_ = std::max<uint32_t>(response_, rr_limits::udp_min_bytes);
  } else {
    out_size_ =
        static_cast<ULONG>(std::clamp<uint64_t>(uint64_t{request_} * depth_, 1, max_tcp_buffer));
    in_size_ =
        static_cast<ULONG>(std::clamp<uint64_t>(uint64_t{response_} * depth_, 1, max_tcp_buffer));
    out_ = std::make_unique<unsigned char[]>(out_size_);
    std::memset(out_.get(), payload_byte, out_size_);
  }
  const uint64_t slot_budget =
      send_slot_memory / std::max<std::size_t>(flows_.size(), 1) / std::max<uint32_t>(request_, 1);
  const auto slots =
      static_cast<uint32_t>(std::clamp<uint64_t>(slot_budget, 1, std::min(depth_, max_send_slots)));
  for (auto& pointer : flows_) {
    Flow& flow = *pointer;
    flow.in = std::make_unique<unsigned char[]>(in_size_);
    flow.receive.flow = &flow;
    if (udp_) {
      flow.window = UdpRrWindow(depth_, loss_pause_ticks_);
      flow.datagrams = std::make_unique<unsigned char[]>(std::size_t{slots} * request_);
      std::memset(flow.datagrams.get(), payload_byte, std::size_t{slots} * request_);
      prove_rr_requests(flow.datagrams.get(), slots, request_, context_, flow.slot);
      flow.sends.resize(slots);
      flow.idle_sends.reserve(slots);
      for (uint32_t i = 0; i < slots; ++i) {
        flow.sends[i].data = flow.datagrams.get() + std::size_t{i} * request_;
        flow.idle_sends.push_back(&flow.sends[i]);
      }
    } else {
      flow.stamps = StampQueue(depth_);
      flow.responses = MessageCounter(response_);
      flow.sends.resize(1);
    }
    for (Operation& send : flow.sends) {
      send.flow = &flow;
      send.send = true;
    }
  }
  report_.connections = static_cast<uint32_t>(flows_.size());
  opened_ = true;
  return ok();
}

void RrRequester::fail_flow(Flow& flow, const char* call, int error) {
  if (!flow.open) return;
  flow.open = false;
  if (!udp_ && context_.open_connections) --*context_.open_connections;
  CancelIoEx(flow.socket.handle(), nullptr);  // its other operations end now, as cancelled
  if (stopping_) return;                      // what the end cancels is no error
  if (error == 0 || is_peer_gone(error))
    ++report_.closed_by_peer;
  else if (!is_cancellation(error))
    record_error(wsa_failure("iocp: " + flow.remote + ": " + call, error));
}

// ---- receiving ----------------------------------------------------------------------------

bool RrRequester::take_receive(Flow& flow, DWORD bytes, int error) {
  if (udp_) {
    if (error == 0)
      udp_response(flow, bytes);
    else if (error == WSAEMSGSIZE)  // larger than a response: its first bytes still answer
      udp_response(flow, in_size_);
    else if (refused(error))
      ++refused_;
    else
      fail_flow(flow, "WSARecv", error);
  } else if (error != 0 || bytes == 0) {  // 0 bytes: the responder closed the connection
    fail_flow(flow, "WSARecv", error);
  } else {
    tcp_responses(flow, bytes);
  }
  return flow.open;
}

void RrRequester::post_receive(Operation& op) {
  Flow& flow = *op.flow;
  for (int turn = 0; turn < inline_budget; ++turn) {
    if (!flow.open || stopping_) {
      op.busy = false;
      return;
    }
    op.overlapped = OVERLAPPED{};
    WSABUF buffer{in_size_, reinterpret_cast<char*>(flow.in.get())};
    DWORD received = 0, flags = 0;
    const int rc =
        WSARecv(flow.socket.get(), &buffer, 1, &received, &flags, &op.overlapped, nullptr);
    const StartResult start = started(rc == 0, received, flow.skips_port);
    if (start.state == Started::pending) {
      ++pending_;
      return;
    }
    // Done at once (or refused at once): handled as its completion would be.
    if (!take_receive(flow, start.bytes, start.error)) {
      op.busy = false;
      return;
    }
  }
  queued_.push_back(&op);
}

// ---- TCP ----------------------------------------------------------------------------------

void RrRequester::tcp_responses(Flow& flow, uint64_t n) {
  complete_tcp_responses(flow, n, context_, clock_, request_, response_);
  tcp_kick(flow);
}

void RrRequester::tcp_kick(Flow& flow) {
  Operation& op = flow.sends.front();
  if (op.busy || flow.unsent == 0 || !flow.open || stopping_) return;
  op.busy = true;
  tcp_post_send(op);
}

void RrRequester::tcp_post_send(Operation& op) {
  Flow& flow = *op.flow;
  for (int turn = 0; turn < inline_budget; ++turn) {
    if (!flow.open || stopping_ || flow.unsent == 0) {
      op.busy = false;
      return;
    }
    const auto length = static_cast<ULONG>(std::min<uint64_t>(flow.unsent, out_size_));
    op.overlapped = OVERLAPPED{};
    WSABUF buffer{length, reinterpret_cast<char*>(out_.get())};
    DWORD sent = 0;
    const int rc = WSASend(flow.socket.get(), &buffer, 1, &sent, 0, &op.overlapped, nullptr);
    const StartResult start = started(rc == 0, sent, flow.skips_port);
    if (start.state == Started::pending) {
      ++pending_;
      ++pending_sends_;
      return;
    }
    if (start.state == Started::failed) {
      op.busy = false;
      fail_flow(flow, "WSASend", start.error);
      return;
    }
    flow.unsent -= std::min<uint64_t>(start.bytes, flow.unsent);
  }
  queued_.push_back(&op);
}

// ---- UDP ----------------------------------------------------------------------------------

void RrRequester::udp_response(Flow& flow, DWORD n) {
  if (n < rr_limits::udp_min_bytes) return;
  const uint64_t now = clock_.now();
  const uint64_t stamp = read_rr_stamp(flow.in.get());
  if (!flow.window.answer(stamp, now)) return;  // given up as lost, or not ours
  context_.rr_histograms[flow.slot].record(clock_.to_ns(now - stamp));
  context_.counters[flow.slot].add(uint64_t{request_} + response_);
  flow.window.refilled(now);
  udp_send(flow);
}

bool RrRequester::udp_send_error(Flow& flow, int error) {
  if (refused(error)) {
    ++refused_;
    return true;
  }
  // The socket's buffer is full for now: the request counts as lost if it never leaves.
  if (error == WSAEWOULDBLOCK || error == WSAENOBUFS) return true;
  fail_flow(flow, "WSASend", error);
  return false;
}

void RrRequester::udp_send(Flow& flow) {
  while (flow.open && !stopping_ && flow.window.room() && !flow.idle_sends.empty()) {
    Operation& op = *flow.idle_sends.back();
    flow.idle_sends.pop_back();
    write_rr_stamp(op.data, clock_.now());
    op.overlapped = OVERLAPPED{};
    WSABUF buffer{request_, reinterpret_cast<char*>(op.data)};
    DWORD sent = 0;
    const int rc = WSASend(flow.socket.get(), &buffer, 1, &sent, 0, &op.overlapped, nullptr);
    const StartResult start = started(rc == 0, sent, flow.skips_port);
    if (start.state == Started::pending) {
      op.busy = true;
      ++pending_;
      ++pending_sends_;
      flow.window.sent();
      continue;
    }
    flow.idle_sends.push_back(&op);
    if (start.state == Started::inline_) {
      flow.window.sent();
      continue;
    }
    udp_send_error(flow, start.error);
    return;  // not sent: an answer, a free slot or the loss pause sends again
  }
}

void RrRequester::udp_check_loss() {
  const uint64_t now = clock_.now();
  for (auto& pointer : flows_) {
    Flow& flow = *pointer;
    if (!flow.open || !flow.window.quiet(now)) continue;
    report_.rr_lost += flow.window.give_up(now);
    flow.window.refilled(now);
    udp_send(flow);
  }
}

// ---- the loop -----------------------------------------------------------------------------

void RrRequester::dispatch(const OVERLAPPED_ENTRY& entry) {
  --pending_;
  auto& op = *reinterpret_cast<Operation*>(entry.lpOverlapped);
  Flow& flow = *op.flow;
  const int error = completion_error(flow.socket.get(), entry.lpOverlapped);
  const DWORD bytes = entry.dwNumberOfBytesTransferred;
  if (!op.send) {
    if (take_receive(flow, bytes, error))
      post_receive(op);
    else
      op.busy = false;
    return;
  }
  --pending_sends_;
  if (udp_) {
    op.busy = false;
    flow.idle_sends.push_back(&op);
    if (error != 0 && !udp_send_error(flow, error)) return;
    return udp_send(flow);  // a slot is free again
  }
  // A send that failed part way may still have put bytes on the stream.
  flow.unsent -= std::min<uint64_t>(bytes, flow.unsent);
  if (error != 0) {
    op.busy = false;
    return fail_flow(flow, "WSASend", error);
  }
  tcp_post_send(op);
}

void RrRequester::run(const std::atomic<bool>& stop) {
  if (!opened_) return;  // a failed open() left nothing to run
  const uint64_t start = clock_.now();
  for (auto& pointer : flows_) {
    Flow& flow = *pointer;
    flow.receive.busy = true;
    post_receive(flow.receive);
    if (udp_) {
      flow.window.refilled(start);
      udp_send(flow);
    } else {
      for (uint32_t i = 0; i < depth_; ++i) flow.stamps.push(start);
      flow.unsent = uint64_t{request_} * depth_;
      tcp_kick(flow);
    }
  }
  OVERLAPPED_ENTRY entries[completion_batch];
  while (!stop.load(std::memory_order_relaxed)) {
    if (!queued_.empty()) {
      swap_.clear();
      swap_.swap(queued_);
      for (Operation* op : swap_) op->send ? tcp_post_send(*op) : post_receive(*op);
    }
    const ULONG n = port_.wait(entries, completion_batch, queued_.empty() ? max_wait_ms : 0);
    for (ULONG i = 0; i < n; ++i) dispatch(entries[i]);
    if (udp_) udp_check_loss();
  }
}

void RrRequester::shut_down() {
  if (shut_down_) return;
  shut_down_ = true;
  stopping_ = true;
  queued_.clear();
  if (!port_.valid()) return;
  OVERLAPPED_ENTRY entries[completion_batch];
  auto drain = [&](const uint64_t& left) {
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(drain_timeout_ms);
    while (left > 0 && std::chrono::steady_clock::now() < deadline) {
      const ULONG n = port_.wait(entries, completion_batch, max_wait_ms);
      for (ULONG i = 0; i < n; ++i) dispatch(entries[i]);
    }
  };
  // The sends started finish first, so no stream ends in the middle of a request.
  drain(pending_sends_);
  for (auto& flow : flows_) {
    if (!flow->socket.valid()) continue;
    if (!udp_ && flow->open) shutdown(flow->socket.get(), SD_SEND);  // FIN after the requests
    CancelIoEx(flow->socket.handle(), nullptr);
  }
  drain(pending_);
  if (pending_ == 0) return;
  report_.notes.push_back("iocp: " + std::to_string(pending_) + " --rr operations still pending " +
                          std::to_string(drain_timeout_ms) +
                          " ms after cancelling them; their buffers were left allocated");
  leak_ = true;
}

WorkerReport RrRequester::finish() {
  shut_down();
  if (refused_ > 0)
    report_.notes.push_back(
        "UDP: " + std::to_string(refused_) +
        " requests were refused (ICMP port unreachable): is the responder listening?");
  if (!udp_ && opened_) {
    for (const auto& flow : flows_) {
      ConnectionStats stats;
      stats.local = flow->local;
      stats.remote = flow->remote;
      stats.bytes = read(context_.counters[flow->slot]).bytes;
      report_.connection_stats.push_back(std::move(stats));
    }
  }
  return report_;
}

}  // namespace xttcp::iocp
