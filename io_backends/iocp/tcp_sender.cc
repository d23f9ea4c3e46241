#include "io_backends/iocp/tcp_sender.hh"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "engine/count_mode.hh"
#include "io_backends/iocp/flow_sockets.hh"
#include "io_backends/iocp/io_request.hh"
#include "io_backends/iocp/iperf2_stream_start.hh"
#include "io_backends/iocp/outstanding.hh"
#include "io_backends/iocp/tcp_connect.hh"
#include "io_backends/iocp/winsock_error.hh"

namespace xttcp::iocp {

namespace {

constexpr unsigned char payload_byte = 'A';  // NTttcp's TCP payload

}  // namespace

// The flows themselves stay allocated (SendWorker) when the drain left sends with the kernel;
// so does the buffer those sends read.
TcpSender::~TcpSender() {
  shut_down();
  if (leak_) static_cast<void>(buffer_.release());
}

Status TcpSender::open() {
  const TestSpec& spec = *context_.spec;
  if (Status port = open_port(); !port) return port;
  budget_ = flow_send_budget(spec);
  length_ = spec.workload.send_buffer;
  buffer_ = std::make_unique<unsigned char[]>(length_);
  std::memset(buffer_.get(), payload_byte, length_);
  const SocketOptions options = socket_options_of(spec);

  ConnectExFunction connect_ex;
  const std::vector<FlowPlan>& flows = context_.plan->flows;
  // One flow's socket, ready for ConnectEx. Again after a refused connect.
  auto open_target = [&](std::size_t i) -> Expected<ConnectTarget> {
    const SocketAddress remote = flow_address(context_, flows[i]);
    SocketAddress source = context_.local;  // -a, else the wildcard
    source.set_port(flows[i].source_port);
    auto opened = open_tcp_flow(port_, remote, source, options, connect_ex);
    if (!opened) return opened.error();
    const ConnectTarget target{opened->socket.get(), opened->skips_port, remote};
    Connection& connection = *flows_[i];
    connection.socket = std::move(opened->socket);  // closes a refused one
    connection.skips_port = opened->skips_port;
    return target;
  };

  std::vector<ConnectTarget> targets;
  for (std::size_t i = 0; i < flows.size(); ++i) {
    auto connection = std::make_unique<Connection>();
    connection->slot = flows[i].slot;
    flows_.push_back(std::move(connection));
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

  std::vector<SOCKET> sockets;
  for (const auto& connection : flows_) sockets.push_back(connection->socket.get());
  if (Status started = start_iperf2_streams(spec, sockets, report_.notes); !started) {
    flows_.clear();
    return started;
  }
  for (std::size_t i = 0; i < flows_.size(); ++i)
    record_opened(context_, flows_[i]->socket.get(), flow_address(context_, flows[i]), false,
                  flows[i].slot);
  for (auto& connection : flows_) {
    connection->local = local_name(connection->socket.get());
    connection->remote = peer_name(connection->socket.get());
    connection->requests.resize(outstanding_);
    connection->unposted = connection->uncounted = budget_;
    for (SendRequest& request : connection->requests) request.connection = connection.get();
  }
  if (context_.open_connections) *context_.open_connections += static_cast<int64_t>(flows_.size());
  report_.connections = static_cast<uint32_t>(flows_.size());
  report_.notes.push_back(outstanding_note(outstanding_, "sends", "connection"));
  opened_ = true;
  return ok();
}

void TcpSender::close_connection(Connection& c, int error) {
  if (!c.open) return;
  c.open = false;
  if (context_.open_connections) --*context_.open_connections;
  if (is_peer_gone(error))
    ++report_.closed_by_peer;
  else if (!is_cancellation(error))
    record_error(wsa_failure("iocp: " + c.remote + ": WSASend", error));
  CancelIoEx(c.socket.handle(), nullptr);  // its other sends complete now, as cancelled
}

void TcpSender::count_sent(Connection& c, uint64_t bytes, uint64_t started) {
  timer_.record(context_.counters[c.slot], started);
  context_.counters[c.slot].add(bytes);
  if (budget_ == 0) return;
  c.uncounted -= std::min(bytes, c.uncounted);
  if (c.uncounted > 0 || c.done) return;
  c.done = true;
  shutdown(c.socket.get(), SD_SEND);  // FIN after the budget: the receiver's end of the test
  if (context_.on_flow_done) context_.on_flow_done();
}

// Starts sends on `request` until one is pending, the pacer says wait, or the inline budget is
// spent (then it waits in queued_).
template <bool Paced>
void TcpSender::post_send(SendRequest& request) {
  Connection& c = *request.connection;
  for (int turn = 0; turn < inline_budget; ++turn) {
    if (!c.open || stopping_) return;
    ULONG length = length_;
    if (budget_ > 0) {  // count mode: never past the budget; an idle request stays idle
      if (c.unposted == 0) return;
      length = static_cast<ULONG>(std::min<uint64_t>(length_, c.unposted));
    }
    if constexpr (Paced) {
      if (!pacer_.due(SendPacer::Clock::now())) {
        queued_.push_back(&request);
        return;
      }
      pacer_.started(length);
    }
    if (budget_ > 0) c.unposted -= length;
    request.overlapped = OVERLAPPED{};
    WSABUF buffer{length, reinterpret_cast<char*>(buffer_.get())};
    DWORD sent = 0;
    request.started = timer_.stamp();
    const int rc = WSASend(c.socket.get(), &buffer, 1, &sent, 0, &request.overlapped, nullptr);
    const StartResult start = started(rc == 0, sent, c.skips_port);
    if (start.state == Started::pending) {
      ++pending_;
      return;
    }
    if (start.state == Started::failed) {
      close_connection(c, start.error);
      return;
    }
    count_sent(c, start.bytes, request.started);
  }
  queued_.push_back(&request);
}

template <bool Paced>
void TcpSender::on_send_completion(const OVERLAPPED_ENTRY& entry) {
  --pending_;
  auto& request = *reinterpret_cast<SendRequest*>(entry.lpOverlapped);
  Connection& c = *request.connection;
  const int error = completion_error(c.socket.get(), entry.lpOverlapped);
  // A send that failed part way may still have put bytes on the stream: they count.
  if (entry.dwNumberOfBytesTransferred > 0)
    count_sent(c, entry.dwNumberOfBytesTransferred, request.started);
  if (error != 0) {
    close_connection(c, error);
    return;
  }
  post_send<Paced>(request);
}

// SendWorker's data loop (send_worker.hh), instantiated wherever a TcpSender is made
// (iocp_backend.cc), calls these; their definitions are here only, so both forms are emitted
// here. A unity build would hide their absence; the Windows leg also links without one.
template void TcpSender::post_send<false>(SendRequest&);
template void TcpSender::post_send<true>(SendRequest&);
template void TcpSender::on_send_completion<false>(const OVERLAPPED_ENTRY&);
template void TcpSender::on_send_completion<true>(const OVERLAPPED_ENTRY&);

WorkerReport TcpSender::finish() {
  if (!opened_) {  // nothing was sent: no statistics to report
    shut_down();
    return report_;
  }
  // Sends already started finish as the receiver reads: then every byte counted was sent.
  wait_for_sends(drain_timeout_ms);
  for (auto& connection : flows_)
    if (connection->open && !connection->done)
      shutdown(connection->socket.get(), SD_SEND);  // FIN after the data
  shut_down();
  for (const auto& connection : flows_) {
    ConnectionStats stats;
    stats.local = connection->local;
    stats.remote = connection->remote;
    stats.bytes = read(context_.counters[connection->slot]).bytes;
    report_.connection_stats.push_back(std::move(stats));
  }
  return report_;
}

}  // namespace xttcp::iocp
