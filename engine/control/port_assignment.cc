#include "engine/control/port_assignment.hh"

#include <array>
#include <thread>

#include <fmt/format.h>

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

Status serve_assigned_ports(UniqueSocket listener, uint16_t first_port, uint32_t threads,
                            const std::atomic<bool>& stop, ControlPortHooks hooks) {
  auto bound = local_address_of(listener.get());
  const uint16_t port = bound ? bound->port() : 0;
  ControlPortDoor door("-sp", std::move(hooks));
  uint32_t handed_out = 0;
  while (handed_out < threads) {
    if (stop.load()) return fail("-sp: stopped");
    if (!door.listening(Clock::now())) {  // out of descriptors a moment ago: no spin
      std::this_thread::sleep_for(std::chrono::milliseconds(door.wait_ms(Clock::now(), 100)));
      continue;
    }
    std::vector<SocketPoll> entries{SocketPoll{listener.get()}};
    if (poll_sockets(entries, 100) <= 0) continue;
    std::optional<UniqueSocket> accepted = door.accept(listener.get(), port);
    if (!accepted) continue;  // none pending, refused (closed at once, no port spent), resting
    const std::array<char, 4> bytes =
        windows_token::encode_assigned_port(uint32_t{first_port} + handed_out);
    size_t done = 0;
    const auto deadline = Clock::now() + std::chrono::seconds(10);
    while (done < bytes.size()) {
      const SocketTransfer sent =
          send_some(accepted->get(), bytes.data() + done, bytes.size() - done);
      if (sent.bytes > 0) {
        done += static_cast<size_t>(sent.bytes);
        continue;
      }
      const SocketError kind = classify_socket_error(sent.error);
      if (kind == SocketError::interrupted) continue;
      if (kind != SocketError::would_block ||
          wait_socket(accepted->get(), WaitFor::write, deadline) <= 0)
        return fail("-sp: cannot send a data port: " + socket_error_text(sent.error));
    }
    ++handed_out;  // the connection closes here, as the original closes it
  }
  return ok();
}

}  // namespace xttcp
