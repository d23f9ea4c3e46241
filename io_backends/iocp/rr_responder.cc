#include "io_backends/iocp/rr_responder.hh"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

#include "io_backends/iocp/io_request.hh"
#include "io_backends/iocp/winsock_error.hh"

namespace xttcp::iocp {

namespace {

constexpr ULONG_PTR stream_key = 2;    // a connection's receive or send (ListenerSet::key is 1)
constexpr ULONG_PTR datagram_key = 3;  // a UDP socket's receive or send
constexpr ULONG connection_buffer = 16 * 1024;  // a connection's receive
constexpr ULONG datagram_buffer = 64 * 1024;    // the largest datagram
constexpr uint64_t max_response_buffer = 1 << 20;
// Answers a UDP socket may have in the kernel at once; a request that finds none free waits (and
// so does the socket's next receive) until one is.
constexpr uint32_t send_slots = 16;
constexpr unsigned char payload_byte = 'A';

// An ICMP error about an earlier datagram, which Windows reports on a later call of the socket,
// or a socket buffer full for a moment: that answer is lost, the socket goes on.
bool passing(int error) {
  return error == WSAECONNRESET || error == WSAENETRESET || error == WSAECONNREFUSED ||
         error == WSAEWOULDBLOCK || error == WSAENOBUFS;
}

}  // namespace

RrResponder::RrResponder(const WorkerContext& context)
    : IocpWorker(context),
      listeners_(*this, [this](OverlappedSocket socket, const ListenerSet::Listener& listener) {
        accepted(std::move(socket), listener);
      }) {}

RrResponder::~RrResponder() {
  shut_down();
  if (!leak_) return;
  // The kernel may still write into these: never free them.
  for (auto& connection : connections_) static_cast<void>(connection.release());
  for (auto& endpoint : endpoints_) static_cast<void>(endpoint.release());
  listeners_.leak();
  static_cast<void>(out_.release());
}

Status RrResponder::open() {
  const TestSpec& spec = *context_.spec;
  if (Status port = open_port(); !port) return port;
  request_ = rr_request_bytes(spec);
  response_ = rr_response_bytes(spec);
  udp_ = spec.workload.protocol == Protocol::udp;
  gate_ = rr_udp_gate(context_, request_, response_);
  options_ = socket_options_of(spec);
  options_.no_delay = true;  // answers leave at once
  if (!udp_) {
    out_size_ = static_cast<ULONG>(std::clamp<uint64_t>(response_, 64 * 1024, max_response_buffer));
    out_ = std::make_unique<unsigned char[]>(out_size_);
    std::memset(out_.get(), payload_byte, out_size_);
    return listeners_.open(options_);
  }

  const std::size_t answer_size = std::max<uint32_t>(response_, rr_limits::udp_min_bytes);
  for (const FlowPlan& flow : context_.plan->flows) {
    const std::string where = "iocp: port " + std::to_string(flow.port) + ": ";
    const SocketAddress address = flow_address(context_, flow);
    auto opened = open_overlapped_socket(address.family(), SOCK_DGRAM);
    if (!opened) return fail(where + opened.error().message);
    if (Status set = apply_socket_options(opened->get(), options_, false); !set)
      return fail(where + set.error().message);
    if (Status bound = bind_socket(opened->get(), address); !bound)
      return fail(where + bound.error().message);
    auto skips = port_.associate(opened->get(), datagram_key);
    if (!skips) return fail(where + skips.error().message);

    auto endpoint = std::make_unique<Endpoint>();
    Endpoint& e = *endpoint;
    e.socket = std::move(*opened);
    e.slot = flow.slot;
    e.port = flow.port;
    e.skips_port = *skips;
    e.buffers = std::make_unique<unsigned char[]>(datagram_buffer + send_slots * answer_size);
    std::memset(e.buffers.get(), payload_byte, datagram_buffer + send_slots * answer_size);
    e.receive.endpoint = &e;
    e.receive.data = e.buffers.get();
    e.sends.resize(send_slots);
    e.idle_sends.reserve(send_slots);
    for (uint32_t i = 0; i < send_slots; ++i) {
      DatagramOp& send = e.sends[i];
      send.endpoint = &e;
      send.send = true;
      send.data = e.buffers.get() + datagram_buffer + i * answer_size;
      e.idle_sends.push_back(&send);
    }
    endpoints_.push_back(std::move(endpoint));
  }
  return ok();
}

void RrResponder::hold_response() const {
  const uint32_t delay_us = context_.spec->rr.delay_us;
  if (delay_us == 0) return;
  // Windows' sleeps follow its timer ticks and may end a little early: sleep until it is over.
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(delay_us);
  for (auto now = std::chrono::steady_clock::now(); now < until;
       now = std::chrono::steady_clock::now())
    std::this_thread::sleep_for(until - now);
}

// ---- TCP ----------------------------------------------------------------------------------

void RrResponder::accepted(OverlappedSocket socket, const ListenerSet::Listener& listener) {
  const std::string where = "iocp: port " + std::to_string(listener.port) + ": ";
  if (Status set = apply_socket_options(socket.get(), options_, true); !set) {
    record_error(where + set.error().message);
    return;
  }
  auto skips = port_.associate(socket.get(), stream_key);
  if (!skips) {
    record_error(where + skips.error().message);
    return;
  }
  uint32_t index;
  if (!free_.empty()) {
    index = free_.back();
    free_.pop_back();
  } else {
    index = static_cast<uint32_t>(connections_.size());
    connections_.emplace_back();
  }
  auto connection = std::make_unique<Connection>();
  Connection& c = *connection;
  c.slot = listener.slot;
  c.index = index;
  c.skips_port = *skips;
  c.requests = MessageCounter(request_);
  c.local = local_name(socket.get());
  c.remote = peer_name(socket.get());
  c.socket = std::move(socket);
  c.in = std::make_unique<unsigned char[]>(connection_buffer);
  c.receive.connection = &c;
  c.send.connection = &c;
  c.send.send = true;
  connections_[index] = std::move(connection);
  ++report_.connections;
  if (context_.on_accept) context_.on_accept();
  report_data_connection(context_, c.socket.get());
  c.receive.busy = true;
  post_stream_receive(c.receive);  // may end the connection: `c` is not used after it
}

void RrResponder::close_connection(Connection& c, int error) {
  if (!c.open) return;
  c.open = false;
  if (error == 0 || is_peer_gone(error))
    ++report_.closed_by_peer;
  else if (!is_cancellation(error))
    record_error(wsa_failure("iocp: " + c.remote + ": WSARecv/WSASend", error));
  CancelIoEx(c.socket.handle(), nullptr);  // its other operation ends now, as cancelled
}

void RrResponder::release(StreamOp& op) {
  op.busy = false;
  Connection& c = *op.connection;
  if (c.open || c.receive.busy || c.send.busy) return;
  // -H serves test after test: keeping every closed connection would grow forever.
  if (!context_.spec->control.hold || stopping_) {
    ConnectionStats stats;
    stats.local = c.local;
    stats.remote = c.remote;
    stats.bytes = c.bytes;
    report_.connection_stats.push_back(std::move(stats));
  }
  const uint32_t index = c.index;
  free_.push_back(index);
  connections_[index].reset();
}

bool RrResponder::take_requests(Connection& c, DWORD bytes, int error) {
  if (error != 0 || bytes == 0) {  // 0 bytes: the requester closed its side
    close_connection(c, error);
    return false;
  }
  c.bytes += bytes;
  const uint64_t requests = c.requests.add(bytes);
  if (requests > 0) {
    FlowCounter& counter = context_.counters[c.slot];
    const uint64_t transaction_bytes = uint64_t{request_} + response_;
    for (uint64_t i = 0; i < requests; ++i) counter.add(transaction_bytes);
    c.unsent += requests * response_;
    hold_response();
    kick_send(c);
  }
  return c.open;
}

void RrResponder::post_stream_receive(StreamOp& op) {
  Connection& c = *op.connection;
  for (int turn = 0; turn < inline_budget; ++turn) {
    if (!c.open || stopping_) return release(op);
    op.overlapped = OVERLAPPED{};
    WSABUF buffer{connection_buffer, reinterpret_cast<char*>(c.in.get())};
    DWORD received = 0, flags = 0;
    const int rc = WSARecv(c.socket.get(), &buffer, 1, &received, &flags, &op.overlapped, nullptr);
    const StartResult start = started(rc == 0, received, c.skips_port);
    if (start.state == Started::pending) {
      ++pending_;
      return;
    }
    if (!take_requests(c, start.bytes, start.error)) return release(op);
  }
  queued_.push_back(&op);
}

void RrResponder::kick_send(Connection& c) {
  if (c.send.busy || c.unsent == 0 || !c.open || stopping_) return;
  c.send.busy = true;
  post_stream_send(c.send);
}

void RrResponder::post_stream_send(StreamOp& op) {
  Connection& c = *op.connection;
  for (int turn = 0; turn < inline_budget; ++turn) {
    if (!c.open || stopping_ || c.unsent == 0) return release(op);
    const auto length = static_cast<ULONG>(std::min<uint64_t>(c.unsent, out_size_));
    op.overlapped = OVERLAPPED{};
    WSABUF buffer{length, reinterpret_cast<char*>(out_.get())};
    DWORD sent = 0;
    const int rc = WSASend(c.socket.get(), &buffer, 1, &sent, 0, &op.overlapped, nullptr);
    const StartResult start = started(rc == 0, sent, c.skips_port);
    if (start.state == Started::pending) {
      ++pending_;
      return;
    }
    if (start.state == Started::failed) {
      close_connection(c, start.error);
      return release(op);
    }
    c.unsent -= std::min<uint64_t>(start.bytes, c.unsent);
  }
  queued_.push_back(&op);
}

void RrResponder::on_stream_completion(const OVERLAPPED_ENTRY& entry) {
  auto& op = *reinterpret_cast<StreamOp*>(entry.lpOverlapped);
  Connection& c = *op.connection;
  const int error = completion_error(c.socket.get(), entry.lpOverlapped);
  const DWORD bytes = entry.dwNumberOfBytesTransferred;
  if (!op.send) {
    if (take_requests(c, bytes, error)) return post_stream_receive(op);
    return release(op);
  }
  c.unsent -= std::min<uint64_t>(bytes, c.unsent);
  if (error != 0) {
    close_connection(c, error);
    return release(op);
  }
  post_stream_send(op);
}

// ---- UDP ----------------------------------------------------------------------------------

void RrResponder::datagram_error(Endpoint& e, const char* call, int error) {
  if (stopping_ || is_cancellation(error)) return;
  record_error(wsa_failure("iocp: port " + std::to_string(e.port) + ": " + call, error));
}

bool RrResponder::answer(Endpoint& e, DWORD bytes) {
  // Not a request, or a larger answer than it brought to a source that proved nothing: its
  // receive goes on, unanswered.
  if (gate_.answer(e.receive.data, std::min<DWORD>(bytes, datagram_buffer), bytes) == 0)
    return true;
  if (!e.seen_data) {
    e.seen_data = true;
    if (context_.on_accept) context_.on_accept();  // -N: the first datagram starts the clock
  }
  if (e.idle_sends.empty()) {
    e.parked = true;
    e.parked_bytes = bytes;
    return false;
  }
  DatagramOp& send = *e.idle_sends.back();
  e.idle_sends.pop_back();
  // The request's send time goes back in the response's first bytes.
  std::memcpy(send.data, e.receive.data, std::min<DWORD>(bytes, rr_limits::udp_min_bytes));
  send.peer = e.receive.peer;
  send.peer_length = e.receive.peer_length;
  send.request = bytes;
  hold_response();
  send.overlapped = OVERLAPPED{};
  WSABUF buffer{response_, reinterpret_cast<char*>(send.data)};
  DWORD sent = 0;
  const int rc =
      WSASendTo(e.socket.get(), &buffer, 1, &sent, 0, reinterpret_cast<const sockaddr*>(&send.peer),
                send.peer_length, &send.overlapped, nullptr);
  const StartResult start = started(rc == 0, sent, e.skips_port);
  if (start.state == Started::pending) {
    ++pending_;
    return true;
  }
  e.idle_sends.push_back(&send);
  if (start.state == Started::inline_)
    context_.counters[e.slot].add(uint64_t{bytes} + response_);
  else if (!passing(start.error))
    datagram_error(e, "WSASendTo", start.error);
  return true;
}

void RrResponder::post_datagram_receive(Endpoint& e) {
  DatagramOp& op = e.receive;
  for (int turn = 0; turn < inline_budget; ++turn) {
    if (!e.open || stopping_) return;
    op.overlapped = OVERLAPPED{};
    op.flags = 0;
    op.peer_length = sizeof op.peer;
    WSABUF buffer{datagram_buffer, reinterpret_cast<char*>(op.data)};
    DWORD received = 0;
    const int rc = WSARecvFrom(e.socket.get(), &buffer, 1, &received, &op.flags,
                               reinterpret_cast<sockaddr*>(&op.peer), &op.peer_length,
                               &op.overlapped, nullptr);
    const StartResult start = started(rc == 0, received, e.skips_port);
    if (start.state == Started::pending) {
      ++pending_;
      return;
    }
    if (start.error == 0 || start.error == WSAEMSGSIZE) {
      if (!answer(e, start.error == 0 ? start.bytes : datagram_buffer)) return;  // parked
    } else if (!passing(start.error)) {
      datagram_error(e, "WSARecvFrom", start.error);
      e.open = false;
      return;
    }
  }
  queued_endpoints_.push_back(&e);
}

void RrResponder::on_datagram_completion(const OVERLAPPED_ENTRY& entry) {
  auto& op = *reinterpret_cast<DatagramOp*>(entry.lpOverlapped);
  Endpoint& e = *op.endpoint;
  const int error = completion_error(e.socket.get(), entry.lpOverlapped);
  if (op.send) {
    e.idle_sends.push_back(&op);
    if (error == 0)
      context_.counters[e.slot].add(uint64_t{op.request} + response_);
    else if (!passing(error))
      datagram_error(e, "WSASendTo", error);
    if (!e.parked || stopping_) return;
    e.parked = false;  // a slot is free: the request waiting for one is answered now
    if (answer(e, e.parked_bytes)) post_datagram_receive(e);
    return;
  }
  if (stopping_) return;  // cancelled, or a request that came too late to be answered
  if (error == 0 || error == WSAEMSGSIZE) {
    if (!answer(e, error == 0 ? entry.dwNumberOfBytesTransferred : datagram_buffer)) return;
  } else if (!passing(error)) {
    datagram_error(e, "WSARecvFrom", error);
    e.open = false;
    return;
  }
  post_datagram_receive(e);
}

// ---- the loop -----------------------------------------------------------------------------

void RrResponder::run(const std::atomic<bool>& stop) {
  for (auto& endpoint : endpoints_) post_datagram_receive(*endpoint);
  OVERLAPPED_ENTRY entries[completion_batch];
  while (!stop.load(std::memory_order_relaxed)) {
    listeners_.resume();
    if (!queued_.empty()) {
      swap_.clear();
      swap_.swap(queued_);
      for (StreamOp* op : swap_) op->send ? post_stream_send(*op) : post_stream_receive(*op);
    }
    if (!queued_endpoints_.empty()) {
      swap_endpoints_.clear();
      swap_endpoints_.swap(queued_endpoints_);
      for (Endpoint* endpoint : swap_endpoints_) post_datagram_receive(*endpoint);
    }
    const bool more = !queued_.empty() || !queued_endpoints_.empty() || listeners_.has_queued();
    const ULONG n =
        port_.wait(entries, completion_batch, more ? 0 : listeners_.wait_ms(max_wait_ms));
    for (ULONG i = 0; i < n; ++i) dispatch(entries[i]);
  }
}

void RrResponder::dispatch(const OVERLAPPED_ENTRY& entry) {
  if (entry.lpCompletionKey == ListenerSet::key) return listeners_.on_completion(entry);
  --pending_;
  if (entry.lpCompletionKey == stream_key) return on_stream_completion(entry);
  on_datagram_completion(entry);
}

void RrResponder::shut_down() {
  if (shut_down_) return;
  shut_down_ = true;
  stopping_ = true;
  // Nothing new starts; what is still queued is done with (closed connections go with it).
  for (auto& connection : connections_)
    if (connection) connection->open = false;
  for (StreamOp* op : queued_) release(*op);
  queued_.clear();
  queued_endpoints_.clear();
  if (!port_.valid()) return;
  // Closing a socket cancels its pending operations; their completions still come to the port.
  listeners_.close();
  for (auto& connection : connections_) {
    if (!connection || !connection->socket.valid()) continue;
    CancelIoEx(connection->socket.handle(), nullptr);
    connection->socket.reset();
  }
  for (auto& endpoint : endpoints_) {
    CancelIoEx(endpoint->socket.handle(), nullptr);
    endpoint->socket.reset();
  }
  OVERLAPPED_ENTRY entries[completion_batch];
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(drain_timeout_ms);
  while (pending_ > 0 && std::chrono::steady_clock::now() < deadline) {
    const ULONG n = port_.wait(entries, completion_batch, max_wait_ms);
    for (ULONG i = 0; i < n; ++i) dispatch(entries[i]);
  }
  leak_ = pending_ > 0;  // the kernel may still write into their buffers: never free them
  if (leak_)
    report_.notes.push_back("iocp: " + std::to_string(pending_) +
                            " --rr operations still pending " + std::to_string(drain_timeout_ms) +
                            " ms after cancelling them; their buffers were left allocated");
  // The connections the drain did not release: idle ones, and those the kernel kept.
  for (auto& connection : connections_) {
    if (!connection) continue;
    Connection& c = *connection;
    if (c.receive.busy || c.send.busy) {
      ConnectionStats stats;
      stats.local = c.local;
      stats.remote = c.remote;
      stats.bytes = c.bytes;
      report_.connection_stats.push_back(std::move(stats));
      continue;
    }
    release(c.receive);
  }
}

WorkerReport RrResponder::finish() {
  shut_down();  // every connection's statistics are in the report after it
  gate_.note(report_);
  return report_;
}

}  // namespace xttcp::iocp
