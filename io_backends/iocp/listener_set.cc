#include "io_backends/iocp/listener_set.hh"

#include <string>

#include "io_backends/iocp/io_request.hh"
#include "io_backends/iocp/winsock_error.hh"

namespace xttcp::iocp {

namespace {

constexpr uint32_t accepts_per_listener = 2;  // a burst of connects is accepted back to back

std::string where(uint16_t port) { return "iocp: port " + std::to_string(port) + ": "; }

}  // namespace

Status ListenerSet::open(const SocketOptions& options) {
  const WorkerContext& context = worker_.context_;
  for (const FlowPlan& flow : context.plan->flows) {
    const std::string at = where(flow.port);
    const SocketAddress address = flow_address(context, flow);
    auto socket = open_overlapped_socket(address.family(), SOCK_STREAM);
    if (!socket) return fail(at + socket.error().message);
    // Accepted sockets inherit the listener's buffer sizes (and its window scale with them).
    if (Status set = apply_socket_options(socket->get(), options, true); !set)
      return fail(at + set.error().message);
    if (Status bound = bind_socket(socket->get(), address); !bound)
      return fail(at + bound.error().message);
    if (listen(socket->get(), SOMAXCONN) != 0) return fail(at + last_wsa_failure("listen"));
    auto skips = worker_.port_.associate(socket->get(), key);
    if (!skips) return fail(at + skips.error().message);
    if (accept_ex_.call == nullptr) {
      auto loaded = load_accept_ex(socket->get());
      if (!loaded) return fail(at + loaded.error().message);
      accept_ex_ = *loaded;
    }
    Listener listener;
    listener.socket = std::move(*socket);
    listener.slot = flow.slot;
    listener.port = flow.port;
    listener.skips_port = *skips;
    listeners_.push_back(std::move(listener));
  }
  for (uint32_t i = 0; i < listeners_.size(); ++i) {
    for (uint32_t k = 0; k < accepts_per_listener; ++k) {
      accepts_.push_back(std::make_unique<AcceptRequest>());
      accepts_.back()->listener = i;
    }
  }
  for (auto& request : accepts_) post_accept(*request);
  return ok();
}

void ListenerSet::post_accept(AcceptRequest& request) {
  Listener& listener = listeners_[request.listener];
  for (int turn = 0; turn < inline_budget; ++turn) {
    if (worker_.stopping_ || !listener.accepting) return;
    if (listener.rest.resting()) {
      listener.parked.push_back(&request);
      return;
    }
    int code = 0;
    auto socket = open_overlapped_socket(worker_.context_.local.family(), SOCK_STREAM, &code);
    if (!socket) {
      if (accept_shortage(code)) return rest_listener(request, code);
      worker_.record_error(where(listener.port) + socket.error().message);
      listener.accepting = false;
      return;
    }
    request.accepted = std::move(*socket);
    request.overlapped = OVERLAPPED{};
    DWORD received = 0;
    const BOOL done =
        accept_ex_.call(listener.socket.get(), request.accepted.get(), request.addresses, 0,
                        accept_address_room, accept_address_room, &received, &request.overlapped);
    const StartResult start = started(done != FALSE, received, listener.skips_port);
    if (start.state == Started::pending) {
      ++worker_.pending_;
      return;
    }
    if (start.state == Started::inline_) {
      on_accept_completion(request, 0);
      continue;
    }
    request.accepted.reset();
    if (start.error == WSAECONNRESET) continue;  // that client gave up before we accepted it
    if (accept_shortage(start.error)) return rest_listener(request, start.error);
    worker_.record_error(wsa_failure(where(listener.port) + "AcceptEx", start.error));
    if (accept_failure_ends_listener(start.error)) listener.accepting = false;
    return;
  }
  queued_.push_back(&request);
}

// As the Linux listeners do (accept_failure.hh): no AcceptEx for a while instead of one failing
// at once in a loop, one line when the shortage begins, and accepting again once it is due.
void ListenerSet::rest_listener(AcceptRequest& request, int code) {
  Listener& listener = listeners_[request.listener];
  std::string line;
  listener.rest.on_shortage(wsa_failure("accept on port " + std::to_string(listener.port), code),
                            ListenerRest::Clock::now(), line);
  say_shortage(worker_.context_, line);
  listener.parked.push_back(&request);
}

void ListenerSet::resume() {
  const auto now = ListenerRest::Clock::now();
  for (Listener& listener : listeners_) {
    if (!listener.rest.due(now)) continue;
    listener.rest.resume();
    std::vector<AcceptRequest*> parked;
    parked.swap(listener.parked);
    for (AcceptRequest* request : parked) post_accept(*request);
  }
  if (queued_.empty()) return;
  std::vector<AcceptRequest*> accepts;
  accepts.swap(queued_);
  for (AcceptRequest* request : accepts) post_accept(*request);
}

DWORD ListenerSet::wait_ms(DWORD wait) const {
  const auto now = ListenerRest::Clock::now();
  std::chrono::milliseconds bound(wait);
  for (const Listener& listener : listeners_) bound = listener.rest.wait_at_most(now, bound);
  return static_cast<DWORD>(bound.count());
}

void ListenerSet::on_accept_completion(AcceptRequest& request, int error) {
  Listener& listener = listeners_[request.listener];
  OverlappedSocket accepted = std::move(request.accepted);
  if (error != 0 || worker_.stopping_) {
    if (error != 0 && !worker_.stopping_ && !is_cancellation(error) && error != WSAECONNRESET)
      worker_.record_error(wsa_failure(where(listener.port) + "AcceptEx", error));
    return;  // `accepted` closes
  }
  say_back(worker_.context_, listener.rest.on_success(listener.port, ListenerRest::Clock::now()));
  const SOCKET listening = listener.socket.get();
  // Gives the accepted socket its listener's properties (getpeername, shutdown need it).
  if (setsockopt(accepted.get(), SOL_SOCKET, SO_UPDATE_ACCEPT_CONTEXT,
                 reinterpret_cast<const char*>(&listening), sizeof listening) != 0) {
    worker_.record_error(last_wsa_failure(where(listener.port) + "SO_UPDATE_ACCEPT_CONTEXT"));
    return;
  }
  accepted_(std::move(accepted), listener);
}

void ListenerSet::on_completion(const OVERLAPPED_ENTRY& entry) {
  --worker_.pending_;
  auto& request = *reinterpret_cast<AcceptRequest*>(entry.lpOverlapped);
  const Listener& listener = listeners_[request.listener];
  // A closed listener's socket is gone: only whether the accept succeeded matters then.
  const int error = listener.socket.valid()
                        ? completion_error(listener.socket.get(), entry.lpOverlapped)
                        : (entry.lpOverlapped->Internal == 0 ? 0 : WSA_OPERATION_ABORTED);
  on_accept_completion(request, error);
  post_accept(request);
}

void ListenerSet::close() {
  queued_.clear();
  for (Listener& listener : listeners_) {
    listener.parked.clear();
    if (!listener.socket.valid()) continue;
    CancelIoEx(listener.socket.handle(), nullptr);
    listener.socket.reset();
  }
}

void ListenerSet::leak() {
  for (auto& request : accepts_) static_cast<void>(request.release());
}

}  // namespace xttcp::iocp
