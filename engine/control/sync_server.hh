// The receiver's sync listener on port base-1: accepts any number of sync connections, speaks
// NTTTCP-for-Linux's int protocol and, on native (xttcp) connections, frames. Every protocol
// decision is ReceiverSync's, and what a connection's bytes are is SyncInput's; this class only
// moves bytes. One thread, one poll loop (engine/net/socket_io: poll on Linux, WSAPoll on
// Windows); a WakeSignal ends its wait.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "base/status.hh"
#include "engine/control/receiver_sync.hh"
#include "engine/control/sync_auth.hh"
#include "engine/control/sync_input.hh"
#include "engine/net/address.hh"
#include "engine/net/unique_socket.hh"
#include "engine/net/wake_signal.hh"
#include "engine/report/line_budget.hh"

namespace xttcp {

// What one listener grants the network: anyone can connect to the sync port, so every
// connection, request, byte and second is bounded (docs/hostile-peers.md).
struct SyncLimits {
  size_t max_connections = 64;  // open sync connections; more are accepted and closed at once
  // Connections from one peer network (peer_network: an IPv4 address, an IPv6 /64) that are not
  // yet in a test nor parked: one such network cannot take every seat.
  size_t max_handshaking_per_network = 16;
  uint32_t max_requests = 256;         // ints on one connection (a sender needs about five)
  size_t max_pending_out = 64 * 1024;  // replies the peer has not read: stop reading from it
  // From its accept, a connection has this long to become a sender of a test or park (-M),
  // whatever it sends meanwhile.
  std::chrono::milliseconds handshake_limit{120'000};
  // A parked sender (-M) waits this long for the '-L' sender (the sender's own default wait).
  std::chrono::milliseconds park_limit{600'000};
  // After its test ended, a sender has this long to hand in its result, take ours and leave;
  // no new test starts before every sender of the last one has left.
  std::chrono::milliseconds settle_limit{60'000};
  // Lines a peer can make the receiver log, test starts and ends included: this many per
  // period, the rest counted and said when the period is over.
  uint32_t log_lines_per_period = 20;
  std::chrono::milliseconds log_period{10'000};
  // One port (SyncServerHooks::stream): connections that have not yet said whether they are
  // sync or data ones (taken once their first bytes came, TCP_DEFER_ACCEPT, they normally say
  // at once), at most (more wait in the backlog), and how long each has to say it. The
  // per-network and max_connections bounds apply once a connection says it is a sync one.
  size_t max_undecided = 256;
  std::chrono::milliseconds undecided_limit{10'000};
  // Tests the listener starts per period: past it a start is refused and a busy check says busy.
  uint32_t tests_per_period = 30;
  std::chrono::milliseconds test_period{60'000};
};

// Every hook is called on the server thread, must return promptly (replies wait for it) and
// may be empty (nothing special to do). Hooks may call test_finished()/publish_result().
struct SyncServerHooks {
  // A native sender's hello frame arrived on connection `peer`, which came to the local address
  // `reached_at` (unset when the socket cannot say); returns the receiver's hello frame ("{}" if
  // empty), or why this sender is refused (its hello breaks a rule): the connection is closed.
  std::function<Expected<std::string>(int peer, const std::string& sender_hello,
                                      const std::optional<SocketAddress>& reached_at)>
      native_hello;
  // Light on: the test starts now, for the negotiated cycle; its senders on `native_senders`
  // (connection ids) said hello and owe their result at the end.
  std::function<void(uint32_t cycle_s, const std::vector<int>& native_senders)> start;
  // 'E' while running: the sender stopped, stop the test now.
  std::function<void()> early_exit;
  // A native sender's result frame: only from a sender of the test, after its 'E'.
  std::function<void(const std::string& sender_result)> peer_result;
  // A sync connection closed: whether it was a sender of the running test (not a busy check or
  // a scan), and the last one.
  std::function<void(ReceiverSync::Departure departure)> peer_closed;
  // One line for the engine's logger (info or error).
  std::function<void(std::string_view line, bool is_error)> log;
  // --allow / --max-clients: serve a sync connection from `peer`? (refusals are counted by the
  // hook's owner; the connection is closed at once). Empty: everyone.
  std::function<bool(const SocketAddress& peer)> admit;
  // --auth-key: connection `peer` proved the key; its data connections open with `cookie`'s
  // preamble (sync_auth.hh) until it closes (peer_closed, departure.peer).
  std::function<void(int peer, const sync_auth::Cookie& cookie)> authenticated;
  // --auth-key: a connection was closed because it did not authenticate (counted by the owner).
  std::function<void()> unauthenticated;
  // One port (--one-port): set, the listener also takes data connections, told apart by their
  // first bytes (a data preamble, sync_auth.hh): each is handed here with the cookie and the
  // direction it named, the socket the hook's to keep or close; nothing after the preamble has
  // been read from it.
  std::function<void(UniqueSocket socket, const SocketAddress& peer,
                     const sync_auth::Opening& opening)>
      stream;
};

class SyncServer {
 public:
  // Binds and listens now, so a busy port is reported before anything starts:
  // "sync port 5000: address already in use". Port 0 picks a free port (see port()).
  // With `key` (--auth-key) every connection must authenticate first (sync_auth.hh).
  static Expected<std::unique_ptr<SyncServer>> listen(
      const SocketAddress& address, ReceiverSync::Config config, SyncServerHooks hooks,
      SyncLimits limits = {}, std::optional<sync_auth::Key> key = std::nullopt);
  ~SyncServer();
  SyncServer(const SyncServer&) = delete;
  SyncServer& operator=(const SyncServer&) = delete;

  void start();  // spawns the loop thread
  void stop();   // idempotent; returns within about one 200 ms loop period
  // State -> finished (13); safe from any thread.
  void test_finished();
  // The test just finished ran its whole window with data: its start does not count against the
  // budget of tests per period, which bounds tests that start and end at once (a flood), not
  // a user's back-to-back tests (xttcp sweep, --repeat with -t 1). Safe from any thread.
  void test_ran_its_course();
  // Sent to every native sender that has sent its result, now or when it does (until it
  // disconnects). Cleared when a new test starts. Safe from any thread.
  void publish_result(std::string result_json);

  uint16_t port() const { return port_; }
  int32_t state() const;  // ReceiverSync's state, for the engine and tests
  // The last test's senders get `grace` from now to leave (not settle_limit): it carried no
  // result worth waiting for. Safe from any thread.
  void hurry_settle(std::chrono::milliseconds grace);
  // One port: whether sync connection `peer` may add a data connection now: while no test
  // runs, any that said hello (it is about to start one); during a test, only its senders, so
  // nobody joins a running test. Safe from any thread.
  bool takes_streams_from(int peer) const;
  // Whether the running test still has a sender connected (one may leave before the engine's
  // thread has begun the test it started).
  bool senders_present() const;

 private:
  struct Connection;
  SyncServer(UniqueSocket listener, WakeSignal wake, uint16_t port, ReceiverSync::Config config,
             SyncServerHooks hooks, SyncLimits limits, std::optional<sync_auth::Key> key);

  void run();
  void accept_all();
  // Its connection id.
  int add_connection(UniqueSocket socket, const SocketAddress& peer, std::string network);
  void on_readable(int id);
  bool process_input(Connection& connection);  // false: the connection must close
  bool handle_request(Connection& connection, int32_t request);
  bool handle_auth(Connection& connection, const SyncInput::Message& message);
  bool refuse_unauthenticated(Connection& connection, std::string_view why);
  // Whether one more connection from `network` may open its handshake (SyncLimits).
  // `except`: a connection not to count (the one asking).
  bool network_has_room(const std::string& network, int except = 0) const;
  // One port: `connection` just said it is a sync connection: whether it has a seat
  // (max_connections, the per-network bound); false (logged): it must close.
  bool seat_sync_connection(const Connection& connection);
  size_t undecided_connections() const;
  bool handle_frame(Connection& connection, bool hello_frame, std::string payload);
  void send_bytes(int id, std::string_view bytes);
  bool flush(Connection& connection);  // false: write error
  void deliver_result();
  void close_connection(int id, std::string_view reason, bool is_error);
  // Closes every connection past its deadline (SyncLimits: handshake, park, settle).
  void close_overdue_connections();
  void say_suppressed_lines();
  // Every line the listener logs is a peer's doing: all go through the budget.
  void log(std::string_view line, bool is_error);

  UniqueSocket listener_;
  WakeSignal wake_;
  std::optional<sync_auth::Key> key_;
  uint16_t port_;
  SyncServerHooks hooks_;
  SyncLimits limits_;
  LineBudget log_budget_;
  LineBudget test_budget_;  // tests started per period
  // When the last test ended (its senders' settle deadline runs from here).
  std::chrono::steady_clock::time_point test_finished_at_{};
  // Accepting failed for want of descriptors or memory: the listener rests until then (no spin).
  std::chrono::steady_clock::time_point listener_resumes_{};
  uint64_t refused_connections_ = 0;
  // By connection id (ReceiverSync's peer id), loop thread only.
  std::unordered_map<int, std::unique_ptr<Connection>> connections_;
  int next_id_ = 1;
  std::thread thread_;
  std::atomic<bool> stopping_{false};

  mutable std::mutex mutex_;  // guards sync_ and the published result
  ReceiverSync sync_;
  std::string result_;
  bool has_result_ = false;
};

}  // namespace xttcp
