#include "io_backends/iocp/tcp_connect.hh"

#include <algorithm>
#include <memory>
#include <string>

#include "io_backends/iocp/io_request.hh"
#include "io_backends/iocp/winsock_error.hh"

namespace xttcp::iocp {

namespace {

struct ConnectRequest {
  OVERLAPPED overlapped{};  // first: a completion hands back its address
  std::size_t target = 0;
  bool pending = false;
};

}  // namespace

Status connect_all(CompletionPort& port, ConnectExFunction connect_ex,
                   const std::vector<ConnectTarget>& targets, std::chrono::seconds timeout) {
  auto requests = std::make_unique<ConnectRequest[]>(targets.size());
  std::size_t pending = 0;
  std::string failure;

  auto connected = [&](std::size_t i) {
    if (setsockopt(targets[i].socket, SOL_SOCKET, SO_UPDATE_CONNECT_CONTEXT, nullptr, 0) != 0)
      failure = last_wsa_failure("iocp: " + targets[i].remote.to_string() +
                                 ": SO_UPDATE_CONNECT_CONTEXT");
  };
  auto refused = [&](std::size_t i, int error) {
    failure = wsa_failure("iocp: connect to " + targets[i].remote.to_string(), error);
  };

  for (std::size_t i = 0; i < targets.size() && failure.empty(); ++i) {
    ConnectRequest& request = requests[i];
    request.target = i;
    DWORD sent = 0;
    const BOOL done =
        connect_ex.call(targets[i].socket, targets[i].remote.get(), targets[i].remote.length,
                        nullptr, 0, &sent, &request.overlapped);
    const StartResult start = started(done != FALSE, sent, targets[i].skips_port);
    if (start.state == Started::pending) {
      request.pending = true;
      ++pending;
    } else if (start.state == Started::inline_) {
      connected(i);
    } else {
      refused(i, start.error);
    }
  }

  OVERLAPPED_ENTRY entries[completion_batch];
  auto take = [&](ULONG n) {
    for (ULONG k = 0; k < n; ++k) {
      auto& request = *reinterpret_cast<ConnectRequest*>(entries[k].lpOverlapped);
      request.pending = false;
      --pending;
      const int error = completion_error(targets[request.target].socket, &request.overlapped);
      if (!failure.empty()) continue;
      if (error != 0)
        refused(request.target, error);
      else
        connected(request.target);
    }
  };

  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (pending > 0 && failure.empty()) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      std::size_t first = 0;
      while (!requests[first].pending) ++first;
      failure = "iocp: " + std::to_string(pending) + " of " + std::to_string(targets.size()) +
                " connections to " + targets[first].remote.host() + " (first: port " +
                std::to_string(targets[first].remote.port()) + ") not established within " +
                std::to_string(timeout.count()) + " s (--connect-timeout)";
      break;
    }
    take(port.wait(entries, completion_batch,
                   static_cast<DWORD>(std::min<int64_t>(left.count(), max_wait_ms))));
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
