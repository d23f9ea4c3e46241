// An iperf3 control connection (server_run.cc, client_run.cc): its bytes through the end's
// session (ServerSession or ClientSession) with every wait bounded, and 3.12's error lines.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fmt/format.h>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "engine/iperf3/client_session.hh"
#include "engine/iperf3/server_session.hh"
#include "engine/net/socket_io.hh"
#include "engine/net/unique_socket.hh"
#include "engine/run/run.hh"

namespace xttcp::iperf3 {

// Every wait on a peer is bounded (3.12 waits for ever on a cookie or a message: one silent
// connection stops its server).
inline constexpr std::chrono::seconds message_wait{10};     // cookie, parameters, results, done
inline constexpr std::chrono::milliseconds poll_step{100};  // how soon a wait sees Ctrl+C

inline bool interrupted(const RunEnv& env) { return user_interrupted(env); }

// A socket error that only says "not now" (EAGAIN, EINTR, or Winsock's).
bool would_block(int error);

// An error line as 3.12 prints it, on stderr ("iperf3: error - ..."); the ends of a client's
// test its server prints without "error -" (reference 6.5).
void complain(Log& log, const std::string& message);

// Writes all of `bytes` within message_wait; `peer` names the other end in the error.
Status write_control(NativeSocket socket, std::string_view bytes, std::string_view peer);

// `Session`: ServerSession or ClientSession (on_control, on_control_closed; its steps' Event
// has none and failed).
template <typename Session>
class ControlConnection {
 public:
  using Step = decltype(std::declval<Session&>().on_control({}));
  using Event = typename Step::Event;

  // `peer`: "the client" or "the server", for the lines; `on_error`: where expect()'s line
  // why goes (by default stderr, as 3.12 prints it: complain()).
  ControlConnection(UniqueSocket socket, const RunEnv& env, std::string_view peer,
                    std::function<void(const std::string&)> on_error = {})
      : socket_(std::move(socket)), env_(env), peer_(peer), on_error_(std::move(on_error)) {
    if (!on_error_) on_error_ = [this](const std::string& line) { complain(env_.log, line); };
  }
  NativeSocket socket() const { return socket_.get(); }
  Status write(std::string_view bytes) { return write_control(socket_.get(), bytes, peer_); }

  // The session's next event, reading as needed until `deadline`, `stop` or Ctrl+C
  // (Event::none then; a deadline already past still reads what has come). A peer that is gone
  // is the session's on_control_closed().
  Step next(Session& session, SteadyClock::time_point deadline,
            const std::atomic<bool>* stop = nullptr) {
    for (Step step = session.on_control({});; step = session.on_control({})) {
      if (step.event != Event::none) return step;
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
        if (step.event != Event::none) return step;
      }
    }
  }

  // The next event is `wanted`, within message_wait; else false, and the line why (none when
  // Ctrl+C cut the wait: the run says so at its end). `what` names the message awaited.
  bool expect(Session& session, Event wanted, Step& step, std::string_view what) {
    step = next(session, SteadyClock::now() + message_wait);
    if (step.event == wanted) return true;
    if (step.event == Event::none && interrupted(env_)) return false;
    on_error_(step.event == Event::none
                  ? fmt::format("{} sent no {} within {} s", peer_, what, message_wait.count())
                  : step.message);
    return false;
  }

 private:
  UniqueSocket socket_;
  const RunEnv& env_;
  std::string_view peer_;
  std::function<void(const std::string&)> on_error_;
};

using ServerControl = ControlConnection<ServerSession>;
using ClientControl = ControlConnection<ClientSession>;

}  // namespace xttcp::iperf3
