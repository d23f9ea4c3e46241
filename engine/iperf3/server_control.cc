#include "engine/iperf3/server_control.hh"

#include <algorithm>
#include <fmt/format.h>

#include "engine/net/os_socket.hh"
#include "engine/net/socket_io.hh"
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

Status ServerControl::write(std::string_view bytes) {
  const auto deadline = SteadyClock::now() + message_wait;
  while (!bytes.empty()) {
    const SocketTransfer sent = send_some(socket_.get(), bytes.data(), bytes.size());
    if (sent.bytes > 0) {
      bytes.remove_prefix(static_cast<std::size_t>(sent.bytes));
      continue;
    }
    if (sent.bytes < 0 && !would_block(sent.error))
      return fail("cannot write to the client: " + socket_error_text(sent.error));
    if (wait_socket(socket_.get(), WaitFor::write, deadline) <= 0)
      return fail("the client did not read its control connection in time");
  }
  return ok();
}

ServerStep ServerControl::next(ServerSession& session, SteadyClock::time_point deadline,
                               const std::atomic<bool>* stop) {
  for (ServerStep step = session.on_control({});; step = session.on_control({})) {
    if (step.event != ServerStep::Event::none) return step;
    for (;;) {
      if (interrupted(env_) || (stop != nullptr && stop->load())) return {};
      const int ready = wait_socket(socket_.get(), WaitFor::read,
                                    std::min(deadline, SteadyClock::now() + poll_step));
      if (ready > 0) break;
      if (ready < 0) return session.on_control_closed();
      if (SteadyClock::now() >= deadline) return {};
    }
    char buffer[4096];
    const SocketTransfer got = receive_some(socket_.get(), buffer, sizeof buffer);
    if (got.bytes == 0 || (got.bytes < 0 && !would_block(got.error)))
      return session.on_control_closed();
    if (got.bytes > 0) {
      step = session.on_control(std::span<const unsigned char>(
          reinterpret_cast<const unsigned char*>(buffer), static_cast<std::size_t>(got.bytes)));
      if (step.event != ServerStep::Event::none) return step;
    }
  }
}

bool ServerControl::expect(ServerSession& session, ServerStep::Event wanted, ServerStep& step,
                           std::string_view what) {
  step = next(session, SteadyClock::now() + message_wait);
  if (step.event == wanted) return true;
  if (step.event == ServerStep::Event::none && interrupted(env_)) return false;
  if (step.event == ServerStep::Event::none)
    complain(env_.log,
             fmt::format("the client sent no {} within {} s", what, message_wait.count()));
  else
    complain(env_.log, step.message);
  return false;
}

}  // namespace xttcp::iperf3
