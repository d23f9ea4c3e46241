#include "engine/control/port_assignment.hh"

#include <algorithm>
#include <array>
#include <deque>
#include <string_view>
#include <thread>

#include <fmt/format.h>

#include "engine/control/port_handout.hh"
#include "engine/control/windows_token.hh"
#include "engine/net/socket_io.hh"
#include "engine/net/socket_setup.hh"

namespace xttcp {

namespace {

using Clock = std::chrono::steady_clock;

// Reads exactly 4 bytes before `deadline`. Error: the reason, for the caller's message.
Expected<std::array<char, 4>> read_port(NativeSocket socket, Clock::time_point deadline) {
  std::array<char, 4> bytes{};
  size_t done = 0;
  while (done < bytes.size()) {
    const SocketTransfer got = receive_some(socket, bytes.data() + done, bytes.size() - done);
    if (got.bytes > 0) {
      done += static_cast<size_t>(got.bytes);
      continue;
    }
    if (got.bytes == 0) return fail("the receiver closed the connection before sending a port");
    const SocketError kind = classify_socket_error(got.error);
    if (kind == SocketError::interrupted) continue;
    if (kind != SocketError::would_block) return fail(socket_error_text(got.error));
    const int ready = wait_socket(socket, WaitFor::read, deadline);
    if (ready == 0) return fail("no port came");
    if (ready < 0) return fail(socket_error_text(last_socket_error()));
  }
  return bytes;
}

constexpr int kPortHandoutPollMs = 50;

// A connection on the base port waiting for its data port.
struct Waiting {
  UniqueSocket socket;
  SocketAddress peer;
  Clock::time_point since{};
};

// Sends a data port into a fresh connection's empty send buffer (4 bytes always fit). Error: why
// not (the peer reset it).
Status send_port(NativeSocket socket, uint16_t port) {
  const std::array<char, 4> bytes = windows_token::encode_assigned_port(port);
  for (;;) {
    const SocketTransfer sent = send_some(socket, bytes.data(), bytes.size());
    if (sent.bytes == static_cast<int64_t>(bytes.size())) return ok();
    if (sent.bytes < 0 && classify_socket_error(sent.error) == SocketError::interrupted) continue;
    return fail(sent.bytes < 0 ? socket_error_text(sent.error) : "a partial send");
  }
}

// Reads and drops what a waiting connection sent (a sender sends nothing here). Error: it closed
// or failed.
Status drain(NativeSocket socket) {
  std::array<char, 64> sink;
  const SocketTransfer got = receive_some(socket, sink.data(), sink.size());
  if (got.bytes > 0) return ok();
  if (got.bytes == 0) return fail("it closed the connection before its data port was sent");
  const SocketError kind = classify_socket_error(got.error);
  if (kind == SocketError::would_block || kind == SocketError::interrupted) return ok();
  return fail(socket_error_text(got.error));
}

}  // namespace

Expected<std::vector<uint32_t>> fetch_assigned_ports(const SocketAddress& receiver,
                                                     uint32_t threads,
                                                     const std::optional<SocketAddress>& source,
                                                     std::chrono::milliseconds timeout,
                                                     const std::atomic<bool>& cancel) {
  const auto deadline = Clock::now() + timeout;
  ConnectOptions options;
  if (source) {
    options.source = *source;
    options.source->set_port(0);
  }
  std::vector<uint32_t> ports;
  std::string last_error;
  while (ports.size() < threads) {
    if (cancel.load()) return fail("-sp: interrupted");
    if (Clock::now() >= deadline)
      return fail(fmt::format("-sp: no data port from {} within {:.0f} s{}", receiver.to_string(),
                              std::chrono::duration<double>(timeout).count(),
                              last_error.empty() ? "" : " (last: " + last_error + ")"));
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    auto connection =
        connect_tcp(receiver, options, std::min(left, std::chrono::milliseconds(1000)));
    if (!connection) {  // not listening yet: the original retries too
      last_error = connection.error().message;
      std::this_thread::sleep_for(windows_token::connect_retry_pause);
      continue;
    }
    auto bytes = read_port(connection->get(), deadline);
    if (!bytes)
      return fail(fmt::format("-sp: no data port from {}: {}", receiver.to_string(),
                              bytes.error().message));
    ports.push_back(windows_token::decode_assigned_port(*bytes));
  }
  return ports;
}

void serve_assigned_ports(UniqueSocket listener, uint16_t first_port, uint32_t threads,
                          const std::atomic<bool>& over, ControlPortHooks hooks,
                          SenderEvidence& evidence) {
  auto bound = local_address_of(listener.get());
  const uint16_t port = bound ? bound->port() : 0;
  ControlPortDoor door("-sp", std::move(hooks));
  PortHandout handout(first_port, threads,
                      [&evidence](uint16_t data_port) { return evidence.claimed(data_port); });
  std::deque<Waiting> waiting;  // in order of arrival: the first gets the next port
  const auto closed = [&](const Waiting& w, std::string_view why) {
    door.log(fmt::format("-sp: closed a connection from {} on port {}: {}", w.peer.to_string(),
                         port, why),
             true);
  };
  while (!over.load()) {
    Clock::time_point now = Clock::now();
    std::optional<Clock::time_point> retry;
    while (!waiting.empty()) {
      const Waiting& first = waiting.front();
      const PortHandout::Next next = handout.next(now);
      if (next.port) {
        if (Status sent = send_port(first.socket.get(), *next.port); !sent) {
          closed(first, "cannot send it a data port: " + sent.error().message);  // not spent
        } else {
          handout.handed_out(*next.port, now);
          evidence.handed_out(*next.port, first.peer.host());
        }
      } else if (!next.retry) {
        closed(first, "every data port is in use");
      } else if (now >= first.since + windows_token::handout_claim_wait) {
        closed(first, fmt::format("no data port freed within {} s",
                                  windows_token::handout_claim_wait.count()));
      } else {
        retry = next.retry;  // the others wait behind it
        break;
      }
      waiting.pop_front();  // closes it
    }
    // Out of descriptors a moment ago: the listener rests (no spin), the waiting ones wait on.
    const bool listening = door.listening(now);
    std::vector<SocketPoll> entries;
    if (listening) entries.push_back(SocketPoll{listener.get()});
    for (const Waiting& w : waiting) entries.push_back(SocketPoll{w.socket.get()});
    int wait_ms = door.wait_ms(now, kPortHandoutPollMs);
    if (retry)
      wait_ms = std::min<int>(
          wait_ms,
          static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(*retry - now).count()));
    if (entries.empty()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
      continue;
    }
    if (poll_sockets(entries, wait_ms) <= 0) continue;  // nothing, or interrupted: look again
    // A waiting connection that closes or fails is gone; what it sends is read and dropped.
    for (std::size_t i = entries.size(); i-- > (listening ? 1 : 0);) {
      if (!entries[i].readable && !entries[i].hung_up) continue;
      auto it = waiting.begin() + static_cast<std::ptrdiff_t>(i - (listening ? 1 : 0));
      if (Status still = drain(it->socket.get()); !still) {
        closed(*it, still.error().message);
        waiting.erase(it);
      }
    }
    if (!listening || (!entries.front().readable && !entries.front().hung_up)) continue;
    SocketAddress peer;
    std::optional<UniqueSocket> accepted = door.accept(listener.get(), port, &peer);
    if (!accepted) continue;  // none pending, refused (closed at once, no port spent), resting
    Waiting arrived{std::move(*accepted), peer, Clock::now()};
    if (waiting.size() >= windows_token::handout_waiters) {
      closed(arrived, fmt::format("{} connections already wait for a data port",
                                  windows_token::handout_waiters));
      continue;
    }
    waiting.push_back(std::move(arrived));
  }
}

}  // namespace xttcp
