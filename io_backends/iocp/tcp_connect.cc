#include "io_backends/iocp/tcp_connect.hh"

#include <algorithm>
#include <memory>
#include <string>

#include "engine/net/os_socket.hh"
#include "engine/net/socket_setup.hh"
#include "io_backends/iocp/io_request.hh"
#include "io_backends/iocp/winsock_error.hh"

namespace xttcp::iocp {

namespace {

using Clock = std::chrono::steady_clock;

struct ConnectRequest {
  OVERLAPPED overlapped{};  // first: a completion hands back its address
  std::size_t target = 0;
  bool pending = false;
  bool connected = false;
  bool refused = false;  // waiting out the retry pause, with no socket
  Clock::time_point retry_at{};
};

}  // namespace

Status connect_all(CompletionPort& port, ConnectExFunction connect_ex,
                   std::vector<ConnectTarget> targets, const ReopenTarget& reopen,
                   std::chrono::seconds timeout) {
  auto requests = std::make_unique<ConnectRequest[]>(targets.size());
  std::size_t pending = 0;  // ConnectEx calls the kernel holds
  std::size_t unfinished = targets.size();
  uint64_t refusals = 0;
  std::string failure;

  auto connected = [&](std::size_t i) {
    requests[i].connected = true;
    --unfinished;
    if (setsockopt(targets[i].socket, SOL_SOCKET, SO_UPDATE_CONNECT_CONTEXT, nullptr, 0) != 0)
      failure = last_wsa_failure("iocp: " + targets[i].remote.to_string() +
                                 ": SO_UPDATE_CONNECT_CONTEXT");
  };
  auto failed = [&](std::size_t i, int error) {
    if (classify_socket_error(error) == SocketError::refused) {
      requests[i].refused = true;
      requests[i].retry_at = Clock::now() + refused_connect_retry_pause;
      ++refusals;
      return;
    }
    failure = wsa_failure("iocp: connect to " + targets[i].remote.to_string(), error);
  };
  auto start = [&](std::size_t i) {
    ConnectRequest& request = requests[i];
    request.overlapped = OVERLAPPED{};
    request.target = i;
    request.refused = false;
    DWORD sent = 0;
    const BOOL done =
        connect_ex.call(targets[i].socket, targets[i].remote.get(), targets[i].remote.length,
                        nullptr, 0, &sent, &request.overlapped);
    const StartResult result = started(done != FALSE, sent, targets[i].skips_port);
    if (result.state == Started::pending) {
      request.pending = true;
      ++pending;
    } else if (result.state == Started::inline_) {
      connected(i);
    } else {
      failed(i, result.error);
    }
  };
  for (std::size_t i = 0; i < targets.size() && failure.empty(); ++i) start(i);

  OVERLAPPED_ENTRY entries[completion_batch];
  auto take = [&](ULONG n) {
    for (ULONG k = 0; k < n; ++k) {
      auto& request = *reinterpret_cast<ConnectRequest*>(entries[k].lpOverlapped);
      request.pending = false;
      --pending;
      const int error = completion_error(targets[request.target].socket, &request.overlapped);
      if (!failure.empty()) continue;
      if (error != 0)
        failed(request.target, error);
      else
        connected(request.target);
    }
  };

  const auto deadline = Clock::now() + timeout;
  while (unfinished > 0 && failure.empty()) {
    const Clock::time_point now = Clock::now();
    if (now >= deadline) {
      std::size_t first = 0;
      while (requests[first].connected) ++first;
      failure = "iocp: " + std::to_string(unfinished) + " of " + std::to_string(targets.size()) +
                " connections to " + targets[first].remote.host() + " (first: port " +
                std::to_string(targets[first].remote.port()) + ") not established within " +
                std::to_string(timeout.count()) + " s (--connect-timeout)";
      if (refusals > 0)  // refused before (a retry may be under way right now)
        failure += ": connection refused, " + std::to_string(refusals) +
                   " tries (is the receiver running?)";
      break;
    }
    Clock::time_point wake = deadline;
    for (std::size_t i = 0; i < targets.size(); ++i)
      if (requests[i].refused) wake = std::min(wake, requests[i].retry_at);
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(wake - now);
    if (pending > 0)
      take(port.wait(entries, completion_batch,
                     static_cast<DWORD>(std::clamp<int64_t>(left.count(), 0, max_wait_ms))));
    else if (left.count() > 0)
      Sleep(static_cast<DWORD>(std::min<int64_t>(left.count(), max_wait_ms)));
    const Clock::time_point after = Clock::now();
    for (std::size_t i = 0; i < targets.size() && failure.empty(); ++i) {
      if (!requests[i].refused || requests[i].retry_at > after) continue;
      auto fresh = reopen(i);
      if (!fresh) {
        requests[i].refused = false;
        failure = fresh.error().message;
        break;
      }
      targets[i] = *fresh;
      start(i);
    }
  }
  if (failure.empty()) return ok();

  for (std::size_t i = 0; i < targets.size(); ++i)
    if (requests[i].pending) CancelIoEx(reinterpret_cast<HANDLE>(targets[i].socket), nullptr);
  const auto drain_deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(drain_timeout_ms);
  while (pending > 0 && std::chrono::steady_clock::now() < drain_deadline)
    take(port.wait(entries, completion_batch, max_wait_ms));
  // A connect the kernel still holds keeps its OVERLAPPED: never free it.
  if (pending > 0) static_cast<void>(requests.release());
  return fail(failure);
}

}  // namespace xttcp::iocp
