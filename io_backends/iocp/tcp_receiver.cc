#include "io_backends/iocp/tcp_receiver.hh"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "io_backends/iocp/io_request.hh"
#include "io_backends/iocp/iperf2_stream_start.hh"
#include "io_backends/iocp/outstanding.hh"
#include "io_backends/iocp/winsock_error.hh"

namespace xttcp::iocp {

namespace {

constexpr ULONG_PTR connection_key = 2;       // ListenerSet::key is 1
constexpr unsigned char expected_byte = 'A';  // NTttcp's TCP payload (-d checks it)

}  // namespace

TcpReceiver::TcpReceiver(const WorkerContext& context)
    : IocpWorker(context),
      listeners_(*this, [this](OverlappedSocket socket, const ListenerSet::Listener& listener) {
        start_connection(std::move(socket), listener);
      }) {}

TcpReceiver::~TcpReceiver() {
  shut_down();
  if (!leak_) return;
  for (auto& connection : connections_) static_cast<void>(connection.release());
  listeners_.leak();
}

Status TcpReceiver::open() {
  const TestSpec& spec = *context_.spec;
  if (Status port = open_port(); !port) return port;
  if (spec.io.wait_all) receive_flags_ = MSG_WAITALL;
  options_ = socket_options_of(spec);
  binning_ = ReadSizeBinning(spec.workload.recv_buffer);

  // Accepting starts now: a sender may connect as soon as open() returns.
  if (Status listening = listeners_.open(options_); !listening) return listening;
  report_.notes.push_back(outstanding_note(outstanding_, "receives", "connection"));
  return ok();
}

void TcpReceiver::start_connection(OverlappedSocket socket, const ListenerSet::Listener& listener) {
  const std::string where = "iocp: port " + std::to_string(listener.port) + ": ";
  if (Status set = apply_socket_options(socket.get(), options_, true); !set) {
    record_error(where + set.error().message);
    return;
  }
  acknowledge_iperf2_stream(*context_.spec, socket.get());  // the iperf2 dialect's server
  auto skips = port_.associate(socket.get(), connection_key);
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
  c.local = local_name(socket.get());
  c.remote = peer_name(socket.get());
  // Watched (its TCP_INFO read at every interval) for its tally only: io.count_reads.
  if (context_.spec->io.count_reads) {
    c.watch_id = watch_connection(context_, socket.get(), c.slot, &c.tally);
    if (c.watch_id != ConnectionWatch::not_watched) c.stream = c.watch_id;
  }
  c.socket = std::move(socket);
  const std::size_t length = context_.spec->workload.recv_buffer;
  c.buffers = std::make_unique<unsigned char[]>(length * outstanding_);
  c.requests.resize(outstanding_);
  for (uint32_t i = 0; i < outstanding_; ++i) {
    c.requests[i].connection = &c;
    c.requests[i].data = c.buffers.get() + i * length;
  }
  connections_[index] = std::move(connection);
  ++report_.connections;
  if (context_.on_accept) context_.on_accept();
  report_data_connection(context_, c.socket.get());
  // One reference more than the requests hold: a receive that fails at once closes the
  // connection, and the connection must outlive this loop.
  c.busy = outstanding_ + 1;
  for (ReceiveRequest& request : c.requests) {
    request.busy = true;
    post_receive(request);
  }
  drop_reference(c);
}

// Counts (and with -d checks) bytes received on `connection`.
void TcpReceiver::consume(Connection& c, const unsigned char* data, DWORD bytes) {
  context_.counters[c.slot].add(bytes);
  c.bytes += bytes;
  if (c.tally != nullptr) binning_.count(*c.tally, bytes);
  if (!context_.spec->workload.verify_data) return;
  const unsigned char* end = data + bytes;
  const unsigned char* wrong =
      std::find_if(data, end, [](unsigned char byte) { return byte != expected_byte; });
  if (wrong == end) return;
  record_error(
      fmt::format("iocp: {}: received data is not all 'A' (-d): byte 0x{:02x} at offset {}",
                  c.remote, *wrong, c.bytes - static_cast<uint64_t>(end - wrong)));
}

// Starts a receive on a busy `request`; handles what completes inline, up to the budget.
void TcpReceiver::post_receive(ReceiveRequest& request) {
  Connection& c = *request.connection;
  const std::size_t length = context_.spec->workload.recv_buffer;
  for (int turn = 0; turn < inline_budget; ++turn) {
    if (!c.open || stopping_) {
      release_request(request);
      return;
    }
    request.overlapped = OVERLAPPED{};
    WSABUF buffer{static_cast<ULONG>(length), reinterpret_cast<char*>(request.data)};
    DWORD received = 0;
    DWORD flags = receive_flags_;
    request.started = timer_.stamp();
    const int rc =
        WSARecv(c.socket.get(), &buffer, 1, &received, &flags, &request.overlapped, nullptr);
    const StartResult start = started(rc == 0, received, c.skips_port);
    if (start.state == Started::pending) {
      ++pending_;
      return;
    }
    if (start.state == Started::failed) {
      close_connection(c, start.error);
      release_request(request);
      return;
    }
    if (start.bytes == 0) {  // the peer closed its side
      close_connection(c, 0);
      release_request(request);
      return;
    }
    timer_.record(context_.counters[c.slot], request.started);
    consume(c, request.data, start.bytes);
  }
  queued_receives_.push_back(&request);
}

// A request is done with: when it was the last of a closed connection, the connection goes.
void TcpReceiver::release_request(ReceiveRequest& request) {
  if (!request.busy) return;
  request.busy = false;
  drop_reference(*request.connection);
}

// A connection's statistics are taken when it goes, after its last receive: one that completed
// after the end of the stream (an inline completion can overtake a queued one) still counts.
void TcpReceiver::record_stats(const Connection& c) {
  // -H serves test after test: keeping every closed connection would grow forever.
  if (context_.spec->control.hold && !stopping_) return;
  ConnectionStats stats;
  stats.local = c.local;
  stats.remote = c.remote;
  stats.bytes = c.bytes;
  stats.stream = c.stream;
  stats.read_sizes = c.read_sizes;
  report_.connection_stats.push_back(std::move(stats));
}

void TcpReceiver::leave_watch(Connection& c) {
  if (c.watch_id == ConnectionWatch::not_watched) return;
  if (c.tally != nullptr) c.read_sizes = c.tally->read().sizes;
  unwatch_connection(context_, c.watch_id);
  c.tally = nullptr;
}

void TcpReceiver::drop_reference(Connection& c) {
  if (--c.busy > 0 || c.open) return;
  // Count mode: the flow is done once every receive of its ended stream has completed.
  leave_watch(c);  // before the flow is done: the engine may read it at once
  if (c.ended && !stopping_ && context_.on_flow_done) context_.on_flow_done();
  record_stats(c);
  free_.push_back(c.index);
  connections_[c.index].reset();
}

void TcpReceiver::close_connection(Connection& c, int error) {
  if (!c.open) return;
  c.open = false;
  if (error == 0) {
    // The end of the stream. Its other receives complete by themselves now (with the last
    // data, or empty); closing the socket here could cancel one the kernel already filled
    // (seen under Wine with -a 4: 32 KiB short).
    ++report_.closed_by_peer;
    c.ended = true;
    return;
  }
  if (is_peer_gone(error)) {
    ++report_.closed_by_peer;
    ++resets_;
  } else if (!is_cancellation(error)) {
    record_error(wsa_failure("iocp: " + c.remote + ": WSARecv", error));
  }
  // A reset or a failure ends the stream as its end does (count mode's flow, the iperf2
  // server's stream); a cancellation is this end stopping.
  if (!is_cancellation(error)) c.ended = true;
  // Its other receives complete now, as cancelled (Wine: error 676); their memory stays until.
  leave_watch(c);
  c.socket.reset();
}

void TcpReceiver::on_receive_completion(ReceiveRequest& request, DWORD bytes, int error) {
  Connection& c = *request.connection;
  if (error == 0 && bytes > 0) {
    timer_.record(context_.counters[c.slot], request.started);
    consume(c, request.data, bytes);
  }
  if (c.open && (error != 0 || bytes == 0)) close_connection(c, error);
  if (!c.open || stopping_) {
    release_request(request);
    return;
  }
  post_receive(request);
}

void TcpReceiver::dispatch(const OVERLAPPED_ENTRY& entry) {
  if (entry.lpCompletionKey == ListenerSet::key) return listeners_.on_completion(entry);
  --pending_;
  auto& request = *reinterpret_cast<ReceiveRequest*>(entry.lpOverlapped);
  // A failed connection's socket is gone: then only whether the receive succeeded is known.
  const int error = completion_error(request.connection->socket.get(), entry.lpOverlapped);
  on_receive_completion(request, entry.dwNumberOfBytesTransferred, error);
}

void TcpReceiver::post_queued() {
  listeners_.resume();  // rested listeners that are due, accepts past the inline budget
  swap_.clear();
  swap_.swap(queued_receives_);
  for (ReceiveRequest* request : swap_) post_receive(*request);
}

void TcpReceiver::run(const std::atomic<bool>& stop) {
  OVERLAPPED_ENTRY entries[completion_batch];
  while (!stop.load(std::memory_order_relaxed)) {
    post_queued();
    const bool more = !queued_receives_.empty() || listeners_.has_queued();
    const ULONG n =
        port_.wait(entries, completion_batch, more ? 0 : listeners_.wait_ms(max_wait_ms));
    for (ULONG i = 0; i < n; ++i) dispatch(entries[i]);
  }
}

void TcpReceiver::shut_down() {
  if (shut_down_) return;
  shut_down_ = true;
  stopping_ = true;
  for (ReceiveRequest* request : queued_receives_) release_request(*request);
  queued_receives_.clear();
  if (!port_.valid()) return;
  // Closing a socket cancels its pending operations; their completions still come to the port.
  listeners_.close();
  for (auto& connection : connections_) {
    if (!connection || !connection->socket.valid()) continue;
    CancelIoEx(connection->socket.handle(), nullptr);
    connection->open = false;
    leave_watch(*connection);
    connection->socket.reset();
  }
  OVERLAPPED_ENTRY entries[completion_batch];
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(drain_timeout_ms);
  while (pending_ > 0 && std::chrono::steady_clock::now() < deadline) {
    const ULONG n = port_.wait(entries, completion_batch, max_wait_ms);
    for (ULONG i = 0; i < n; ++i) dispatch(entries[i]);
  }
  leak_ = pending_ > 0;  // the kernel may still write into their buffers: never free them
  // Those the drain did not release: idle ones (their receives were all queued), leaked ones.
  for (auto& connection : connections_) {
    if (!connection) continue;
    record_stats(*connection);
    if (connection->busy == 0) connection.reset();
  }
}

WorkerReport TcpReceiver::finish() {
  shut_down();  // every connection's statistics are in the report after it
  if (pending_ > 0)
    report_.notes.push_back("iocp: " + std::to_string(pending_) + " operations still pending " +
                            std::to_string(drain_timeout_ms) +
                            " ms after cancelling them; their buffers were left allocated");
  if (resets_ > 0)
    report_.notes.push_back(fmt::format(
        "{} connection(s) ended with a reset from the sender (it closed without reading what it "
        "was sent), each counted to its end",
        resets_));
  return report_;
}

}  // namespace xttcp::iocp
