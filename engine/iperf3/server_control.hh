// The iperf3 server's control connection (server_run.cc): its bytes through the session with
// every wait bounded, and the server's error lines as 3.12 prints them.
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <string_view>

#include "engine/iperf3/server_session.hh"
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

// An error line as 3.12's server prints it, on stderr ("iperf3: error - ..."); the ends of a
// client's test it prints without "error -" (reference 6.5).
void complain(Log& log, const std::string& message);

class ServerControl {
 public:
  ServerControl(UniqueSocket socket, const RunEnv& env) : socket_(std::move(socket)), env_(env) {}
  NativeSocket socket() const { return socket_.get(); }
  // Writes all of `bytes` within message_wait.
  Status write(std::string_view bytes);
  // The session's next event, reading as needed until `deadline`, `stop` or Ctrl+C
  // (Event::none then; a deadline already past still reads what has come). A peer that is gone
  // is Event::failed.
  ServerStep next(ServerSession& session, SteadyClock::time_point deadline,
                  const std::atomic<bool>* stop = nullptr);
  // The next event is `wanted`, within message_wait; else false, and the line why (none when
  // Ctrl+C cut the wait: the run says so at its end). `what` names the message awaited.
  bool expect(ServerSession& session, ServerStep::Event wanted, ServerStep& step,
              std::string_view what);

 private:
  UniqueSocket socket_;
  const RunEnv& env_;
};

}  // namespace xttcp::iperf3
