#include "io_backends/iocp/udp_receiver.hh"

#include <chrono>

#include "engine/count_mode.hh"
#include "io_backends/iocp/io_request.hh"
#include "io_backends/iocp/outstanding.hh"
#include "io_backends/iocp/winsock_error.hh"

namespace xttcp::iocp {

namespace {

constexpr std::size_t full_buffer = 65536;  // the largest datagram

}  // namespace

UdpReceiver::~UdpReceiver() {
  shut_down();
  if (!leak_) return;
  for (auto& socket : sockets_) static_cast<void>(socket.release());
}

Status UdpReceiver::open() {
  const TestSpec& spec = *context_.spec;
  if (context_.udp_flows == nullptr)
    return fail("iocp: a UDP worker needs the run's flow registry");
  if (Status port = open_port(); !port) return port;
  const SocketOptions options = socket_options_of(spec);

  for (const FlowPlan& flow : context_.plan->flows) {
    const std::string where = "iocp: port " + std::to_string(flow.port) + ": ";
    const SocketAddress address = flow_address(context_, flow);
    auto opened = open_overlapped_socket(address.family(), SOCK_DGRAM);
    if (!opened) return fail(where + opened.error().message);
    if (Status set = apply_socket_options(opened->get(), options, false); !set)
      return fail(where + set.error().message);
    if (Status bound = bind_socket(opened->get(), address); !bound)
      return fail(where + bound.error().message);
    auto skips = port_.associate(opened->get(), 0);
    if (!skips) return fail(where + skips.error().message);

    auto socket = std::make_unique<Socket>();
    socket->socket = std::move(*opened);
    socket->slot = flow.slot;
    socket->port = flow.port;
    socket->skips_port = *skips;
    socket->accounting = std::make_unique<udp::DatagramAccounting>(*context_.udp_flows, flow.slot,
                                                                   &context_.on_flow_done);
    socket->accounting->end_compat_after(compat_datagrams_per_flow(*context_.spec));
    socket->buffers = std::make_unique<unsigned char[]>(full_buffer * outstanding_);
    socket->requests.resize(outstanding_);
    socket->ring.assign(outstanding_, nullptr);
    for (uint32_t i = 0; i < outstanding_; ++i) {
      socket->requests[i].socket = socket.get();
      socket->requests[i].data = socket->buffers.get() + i * full_buffer;
    }
    sockets_.push_back(std::move(socket));
  }
  // Receiving starts now: datagrams sent before run() wait in our buffers, not the kernel's.
  for (auto& socket : sockets_) {
    for (ReceiveRequest& request : socket->requests) start_receive(request);
    consume_in_order(*socket);
  }
  report_.notes.push_back(outstanding_note(outstanding_, "receives", "socket"));
  return ok();
}

void UdpReceiver::consume(Socket& socket, const unsigned char* data, DWORD bytes) {
  if (!socket.seen_data) {
    socket.seen_data = true;
    if (context_.on_accept) context_.on_accept();  // -N: the first datagram starts the clock
  }
  // An end marker (count mode) ends its flow in the accounting and is no data.
  if (socket.accounting->on_datagram(data, bytes, bytes, steady_ns()))
    context_.counters[socket.slot].add(bytes);
  socket.accounting->announce_ended();
}

bool UdpReceiver::on_receive_error(Socket& socket, int error) {
  // An ICMP error for something this socket never sent to (Windows reports them on receives).
  if (error == WSAECONNRESET || error == WSAENETRESET) return true;
  if (!socket.open) return false;
  socket.open = false;
  if (!is_cancellation(error))
    record_error(wsa_failure("iocp: port " + std::to_string(socket.port) + ": WSARecvFrom", error));
  return false;
}

// Starts a receive on `request`, the next ticket of its socket. An inline completion is only
// marked done: consume_in_order() takes it in turn.
void UdpReceiver::start_receive(ReceiveRequest& request) {
  Socket& socket = *request.socket;
  request.ticket = socket.next_ticket++;
  socket.ring[request.ticket % outstanding_] = &request;
  request.done = false;
  request.overlapped = OVERLAPPED{};
  request.flags = 0;
  WSABUF buffer{static_cast<ULONG>(full_buffer), reinterpret_cast<char*>(request.data)};
  DWORD received = 0;
  request.started = timer_.stamp();
  const int rc = WSARecvFrom(socket.socket.get(), &buffer, 1, &received, &request.flags, nullptr,
                             nullptr, &request.overlapped, nullptr);
  const StartResult start = started(rc == 0, received, socket.skips_port);
  if (start.state == Started::pending) {
    ++pending_;
    return;
  }
  request.done = true;
  request.bytes = start.bytes;
  request.error = start.error;
  if (request.error == 0) timer_.record(context_.counters[socket.slot], request.started);
}

// Consumes the socket's completed receives in ticket order, restarting each, until the oldest is
// still pending; past the budget the socket waits in queued_ for the next turn.
void UdpReceiver::consume_in_order(Socket& socket) {
  constexpr int budget = 64;  // datagrams per call: other sockets and `stop` get their turn
  for (int turn = 0; turn < budget; ++turn) {
    ReceiveRequest*& oldest = socket.ring[socket.head % outstanding_];
    if (oldest == nullptr || !oldest->done) return;
    ReceiveRequest& request = *oldest;
    oldest = nullptr;
    ++socket.head;
    if (request.error == 0)
      consume(socket, request.data, request.bytes);  // 0 bytes: an empty datagram, not an end
    else if (!on_receive_error(socket, request.error))
      continue;
    if (socket.open && !stopping_) start_receive(request);
  }
  if (!socket.queued) {
    socket.queued = true;
    queued_.push_back(&socket);
  }
}

void UdpReceiver::on_receive_completion(const OVERLAPPED_ENTRY& entry) {
  --pending_;
  auto& request = *reinterpret_cast<ReceiveRequest*>(entry.lpOverlapped);
  Socket& socket = *request.socket;
  request.done = true;
  request.bytes = entry.dwNumberOfBytesTransferred;
  request.error = completion_error(socket.socket.get(), entry.lpOverlapped);
  if (request.error == 0) timer_.record(context_.counters[socket.slot], request.started);
  consume_in_order(socket);
}

void UdpReceiver::run(const std::atomic<bool>& stop) {
  OVERLAPPED_ENTRY entries[completion_batch];
  while (!stop.load(std::memory_order_relaxed)) {
    if (!queued_.empty()) {
      swap_.clear();
      swap_.swap(queued_);
      for (Socket* socket : swap_) {
        socket->queued = false;
        consume_in_order(*socket);
      }
    }
    const ULONG n = port_.wait(entries, completion_batch, queued_.empty() ? max_wait_ms : 0);
    for (ULONG i = 0; i < n; ++i) on_receive_completion(entries[i]);
  }
}

void UdpReceiver::shut_down() {
  if (shut_down_) return;
  shut_down_ = true;
  stopping_ = true;
  queued_.clear();
  if (!port_.valid()) return;
  for (auto& socket : sockets_) CancelIoEx(socket->socket.handle(), nullptr);
  OVERLAPPED_ENTRY entries[completion_batch];
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(drain_timeout_ms);
  while (pending_ > 0 && std::chrono::steady_clock::now() < deadline) {
    const ULONG n = port_.wait(entries, completion_batch, max_wait_ms);
    for (ULONG i = 0; i < n; ++i) on_receive_completion(entries[i]);
  }
  if (pending_ == 0) return;
  report_.notes.push_back("iocp: " + std::to_string(pending_) + " UDP receives still pending " +
                          std::to_string(drain_timeout_ms) +
                          " ms after cancelling them; their buffers were left allocated");
  leak_ = true;
}

WorkerReport UdpReceiver::finish() {
  shut_down();
  report_.connections = 0;
  for (const auto& socket : sockets_) report_.connections += socket->accounting->flows();
  return report_;
}

}  // namespace xttcp::iocp
