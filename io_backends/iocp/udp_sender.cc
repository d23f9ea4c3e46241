#include "io_backends/iocp/udp_sender.hh"

#include <algorithm>
#include <cstring>

#include "engine/count_mode.hh"
#include "engine/udp/datagram_header.hh"
#include "io_backends/iocp/flow_sockets.hh"
#include "io_backends/iocp/io_request.hh"
#include "io_backends/iocp/outstanding.hh"
#include "io_backends/iocp/winsock_error.hh"

namespace xttcp::iocp {

namespace {

constexpr unsigned char compat_fill = 'B';  // NTttcp's UDP payload

void add(std::atomic<uint64_t>& counter, uint64_t n) {
  counter.store(counter.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
}

}  // namespace

Status UdpSender::open() {
  const TestSpec& spec = *context_.spec;
  if (context_.udp_flows == nullptr)
    return fail("iocp: a UDP worker needs the run's flow registry");
  if (Status port = open_port(); !port) return port;
  datagram_ = spec.workload.send_buffer;
  native_ = spec.workload.udp_payload != UdpPayload::compat && datagram_ >= udp::header_size;
  unconnected_ = spec.io.udp_unconnected;
  budget_ = flow_send_datagrams(spec);
  const SocketOptions options = socket_options_of(spec);

  for (const FlowPlan& plan : context_.plan->flows) {
    auto flow = std::make_unique<Flow>();
    flow->remote = flow_address(context_, plan);
    SocketAddress source = context_.local;  // -a, else the wildcard (bound only if named)
    source.set_port(plan.source_port);
    auto opened = open_udp_flow(port_, flow->remote, source, options, unconnected_);
    if (!opened) return opened.error();
    record_opened(context_, opened->socket.get(), flow->remote, true, plan.slot);

    flow->socket = std::move(opened->socket);
    flow->slot = plan.slot;
    flow->flow_id = context_.udp_flow_base | plan.slot;
    flow->counters = &context_.udp_flows->add(plan.slot, flow->flow_id);
    flow->skips_port = opened->skips_port;
    flow->unposted = flow->uncounted = budget_;
    flow->buffers = std::make_unique<unsigned char[]>(std::size_t{datagram_} * outstanding_);
    std::memset(flow->buffers.get(), compat_fill, std::size_t{datagram_} * outstanding_);
    flow->requests.resize(outstanding_);
    for (uint32_t i = 0; i < outstanding_; ++i) {
      SendRequest& request = flow->requests[i];
      request.flow = flow.get();
      request.datagram = flow->buffers.get() + std::size_t{i} * datagram_;
      if (native_)
        udp::encode(udp::DatagramHeader{flow->flow_id, 0, 0, context_.udp_flow_token},
                    request.datagram);
    }
    flows_.push_back(std::move(flow));
  }
  report_.connections = static_cast<uint32_t>(flows_.size());
  report_.notes.push_back(outstanding_note(outstanding_, "datagram sends", "flow"));
  opened_ = true;
  return ok();
}

void UdpSender::count_sent(Flow& flow, DWORD bytes, uint64_t started) {
  timer_.record(context_.counters[flow.slot], started);
  context_.counters[flow.slot].add(bytes);
  add(flow.counters->datagrams, 1);
  add(flow.counters->bytes, bytes);
  if (budget_ == 0 || --flow.uncounted > 0) return;
  flow.end.begin(steady_ns());  // count mode: all N sent, the end markers follow
  ++ending_;
}

bool UdpSender::on_send_error(Flow& flow, int error) {
  if (error == WSAECONNRESET || error == WSAECONNREFUSED) {
    ++refused_;  // an ICMP port unreachable for an earlier datagram; NTttcp goes on too
    if (budget_ > 0) ++flow.unposted;  // count mode: that datagram did not leave, send it again
    return true;
  }
  if (!flow.open) return false;
  flow.open = false;
  if (!is_cancellation(error))
    record_error(wsa_failure("iocp: UDP to " + flow.remote.to_string() + ": send", error));
  CancelIoEx(flow.socket.handle(), nullptr);
  // Count mode: the flow is over; the run ends and reports the error.
  if (budget_ > 0 && !flow.end.begun() && context_.on_flow_done) context_.on_flow_done();
  return false;
}

// A synchronous send on the overlapped socket: no completion packet comes for it.
void UdpSender::send_end_marker(Flow& flow) {
  unsigned char marker[udp::end_marker_size];
  udp::encode_end_marker({flow.flow_id, budget_, !native_, steady_ns(), context_.udp_flow_token},
                         marker);
  const char* bytes = reinterpret_cast<const char*>(marker);
  const int length = static_cast<int>(sizeof marker);
  const int rc = unconnected_ ? sendto(flow.socket.get(), bytes, length, 0, flow.remote.get(),
                                       flow.remote.length)
                              : send(flow.socket.get(), bytes, length, 0);
  const int error = rc == SOCKET_ERROR ? WSAGetLastError() : 0;
  if (error == WSAEWOULDBLOCK || error == WSAENOBUFS) return;  // try again on the next turn
  flow.end.marker_sent();
  // A refusal is about an earlier datagram: the marker counts as sent, so the ending is bounded.
  if (error != 0 && error != WSAECONNRESET && error != WSAECONNREFUSED) {
    record_error(wsa_failure("iocp: UDP to " + flow.remote.to_string() + ": end marker", error));
    flow.end.finish_now();
  }
}

DWORD UdpSender::between_waits(DWORD timeout) {
  if (ending_ == 0) return timeout;
  const uint64_t now = steady_ns();
  uint64_t next_ns = 0;
  for (auto& flow : flows_) {
    if (!flow->end.begun() || flow->end.finished()) continue;
    if (flow->end.due(now)) send_end_marker(*flow);
    if (flow->end.finished()) {
      --ending_;
      if (context_.on_flow_done) context_.on_flow_done();
      continue;
    }
    const uint64_t wait = std::max<uint64_t>(flow->end.wait_ns(now), 1);  // socket full: 1 ms
    next_ns = next_ns == 0 ? wait : std::min(next_ns, wait);
  }
  if (next_ns == 0) return timeout;
  const auto wait_ms = static_cast<DWORD>((next_ns + 999'999) / 1'000'000);
  return std::min(timeout, wait_ms);
}

template <bool Paced>
void UdpSender::post_send(SendRequest& request) {
  Flow& flow = *request.flow;
  for (int turn = 0; turn < inline_budget; ++turn) {
    if (!flow.open || stopping_) return;
    if (budget_ > 0 && flow.unposted == 0) return;  // count mode: never past N; it stays idle
    if constexpr (Paced) {
      if (!pacer_.due(SendPacer::Clock::now())) {
        queued_.push_back(&request);
        return;
      }
      pacer_.started(datagram_);
    }
    if (budget_ > 0) --flow.unposted;
    // Sequence and send time just before the send; a sequence is used once, sent or not.
    if (native_) udp::stamp(request.datagram, flow.next_sequence++, steady_ns());
    request.overlapped = OVERLAPPED{};
    WSABUF buffer{datagram_, reinterpret_cast<char*>(request.datagram)};
    DWORD sent = 0;
    request.started = timer_.stamp();
    const int rc =
        unconnected_
            ? WSASendTo(flow.socket.get(), &buffer, 1, &sent, 0, flow.remote.get(),
                        flow.remote.length, &request.overlapped, nullptr)
            : WSASend(flow.socket.get(), &buffer, 1, &sent, 0, &request.overlapped, nullptr);
    const StartResult start = started(rc == 0, sent, flow.skips_port);
    if (start.state == Started::pending) {
      ++pending_;
      return;
    }
    if (start.state == Started::failed) {
      if (!on_send_error(flow, start.error)) return;
      continue;
    }
    count_sent(flow, start.bytes, request.started);
  }
  queued_.push_back(&request);
}

template <bool Paced>
void UdpSender::on_send_completion(const OVERLAPPED_ENTRY& entry) {
  --pending_;
  auto& request = *reinterpret_cast<SendRequest*>(entry.lpOverlapped);
  Flow& flow = *request.flow;
  const int error = completion_error(flow.socket.get(), entry.lpOverlapped);
  if (error == 0)
    count_sent(flow, entry.dwNumberOfBytesTransferred, request.started);
  else if (!on_send_error(flow, error))
    return;
  post_send<Paced>(request);
}

// SendWorker's data loop (send_worker.hh), instantiated wherever a UdpSender is made
// (iocp_backend.cc), calls these; their definitions are here only, so both forms are emitted
// here. A unity build would hide their absence; the Windows leg also links without one.
template void UdpSender::post_send<false>(SendRequest&);
template void UdpSender::post_send<true>(SendRequest&);
template void UdpSender::on_send_completion<false>(const OVERLAPPED_ENTRY&);
template void UdpSender::on_send_completion<true>(const OVERLAPPED_ENTRY&);

WorkerReport UdpSender::finish() {
  if (!opened_) {  // nothing was sent: no statistics to report
    shut_down();
    return report_;
  }
  wait_for_sends(drain_timeout_ms);  // datagrams already handed over count as sent
  shut_down();
  if (refused_ > 0)
    report_.notes.push_back(
        "UDP: " + std::to_string(refused_) +
        " sends were refused (ICMP port unreachable): is the receiver listening?");
  for (const auto& flow : flows_) {
    ConnectionStats stats;
    stats.bytes = read(context_.counters[flow->slot]).bytes;
    report_.connection_stats.push_back(std::move(stats));
  }
  return report_;
}

}  // namespace xttcp::iocp
