// The door of the Windows dialect's control ports (the -sp port hand-out, the token ports), kept
// as the sync port keeps its own: each connection is asked about first (--allow,
// --max-clients), a refused one is closed at once and logged (rate-limited: a peer triggers
// these lines; the counts are PeerAdmission's, in the result), and an accept() out of
// descriptors rests the listeners for ListenerRest::pause, said once at once, instead of ending
// the test. One per serving loop, on its thread.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "engine/net/address.hh"
#include "engine/net/listener_rest.hh"
#include "engine/net/unique_socket.hh"
#include "engine/report/line_budget.hh"

namespace xttcp {

struct ControlPortHooks {
  // --allow / --max-clients: serve a connection from `peer`? Empty: everyone.
  std::function<bool(const SocketAddress& peer)> admit;
  // One line for the engine's log (info or error). Empty: nothing is logged.
  std::function<void(std::string_view line, bool is_error)> log;
};

class ControlPortDoor {
 public:
  using Clock = ListenerRest::Clock;

  // `name` starts every line ("-sp", "token sync").
  ControlPortDoor(std::string name, ControlPortHooks hooks)
      : name_(std::move(name)), hooks_(std::move(hooks)) {}

  // Whether the listeners are polled now: false while they rest after a shortage.
  bool listening(Clock::time_point now);
  // How long a loop that waits at most `longest_ms` may wait before the listeners are due.
  int wait_ms(Clock::time_point now, int longest_ms) const;
  // One pending connection on `listener` (bound to `port`), once polling said it is readable:
  // the connection to serve (its peer in `*peer` if asked), or nullopt (none pending; refused
  // and closed; or accept() failed, the listeners then rest).
  std::optional<UniqueSocket> accept(NativeSocket listener, uint16_t port,
                                     SocketAddress* peer = nullptr);
  // A line a peer triggered (a connection closed, and why): logged within the door's budget.
  void log(std::string_view line, bool is_error);

 private:
  std::string name_;
  ControlPortHooks hooks_;
  ListenerRest rest_;
  LineBudget budget_{20, std::chrono::seconds(10)};
};

}  // namespace xttcp
