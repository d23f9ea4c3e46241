#include "engine/iperf3/control_connection.hh"

#include "engine/net/os_socket.hh"
#include "engine/report/log.hh"

namespace xttcp::iperf3 {

bool would_block(int error) {
  const SocketError kind = classify_socket_error(error);
  return kind == SocketError::would_block || kind == SocketError::interrupted;
}

void complain(Log& log, const std::string& message) {
  const bool plain = message == "the client has unexpectedly closed the connection" ||
                     message == "the client has terminated";
  log.raw_error(plain ? "iperf3: " + message : "iperf3: error - " + message);
}

Status write_control(NativeSocket socket, std::string_view bytes, std::string_view peer) {
  const auto deadline = SteadyClock::now() + message_wait;
  while (!bytes.empty()) {
    const SocketTransfer sent = send_some(socket, bytes.data(), bytes.size());
    if (sent.bytes > 0) {
      bytes.remove_prefix(static_cast<std::size_t>(sent.bytes));
      continue;
    }
    if (sent.bytes < 0 && !would_block(sent.error))
      return fail(fmt::format("cannot write to {}: {}", peer, socket_error_text(sent.error)));
    if (wait_socket(socket, WaitFor::write, deadline) <= 0)
      return fail(fmt::format("{} did not read its control connection in time", peer));
  }
  return ok();
}

}  // namespace xttcp::iperf3
