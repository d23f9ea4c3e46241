// The receiver's side of the sync protocol as a pure state machine: one request in, the
// replies (possibly to other peers) and the actions out. No sockets, no clock, no threads.
// Rules follow NTTTCP-for-Linux 1.4's receiver ('X' state query, cycle negotiation, 'R'/'L'
// start, -M waits with 'W', 'E' early exit) minus its defects (a proposed cycle that reads as a
// command is the sender's business, see safe_cycle_proposal; the second 'R' its 'L' handler sends
// the last client is not copied; a sender racing past its busy check does not join the running
// test), plus xttcp's native HELLO and the session rules of docs/hostile-peers.md: a test belongs
// to the senders that started it, the next one starts only once they have all left, and a
// sender's word never makes a cycle longer than this receiver's --max-cycle.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/control/sync_codes.hh"

namespace xttcp {

class ReceiverSync {
 public:
  struct Config {
    bool multi_clients = false;  // -M: senders park with 'W' until the '-L' sender arrives
    uint32_t duration_s = 60;    // -t; 0 = continuous
    uint32_t own_cycle_s = 60;   // this receiver's W+t+C: the cycle if no sender proposes one
    // --max-cycle: the longest cycle a sender's proposal can make (0: no limit, continuous
    // included); never above sync_code::kMaxCycleSeconds.
    uint32_t max_cycle_s = 3600;
  };
  struct Reply {
    int peer;
    int32_t value;
  };
  struct Outcome {
    std::vector<Reply> replies;                  // in this order; may address parked peers
    bool start = false;                          // turn the light on now
    bool stop_early = false;                     // 'E' while running
    std::optional<uint32_t> negotiated_cycle_s;  // set when a proposal was answered
    bool native_hello = false;  // peer is an xttcp sender: its next message is a frame
    // A sender of the current (or just finished) test said 'E': a native one sends its result
    // next. Nobody else's result is ever taken.
    bool result_may_follow = false;
    std::vector<std::string> log_info, log_error;  // lines for the engine's logger
  };

  explicit ReceiverSync(Config config);

  // `peer` is any id the caller keeps unique while the peer is connected (e.g. its fd).
  Outcome on_request(int peer, int32_t request);
  // Whether a new test may start now (the listener's budget of tests per period): while not, a
  // state query answers "running" (busy) and a start is refused. A running test is not touched.
  void set_starts_allowed(bool allowed) { starts_allowed_ = allowed; }
  struct Departure {
    bool left_running_test = false;  // a sender of the running test went away
    bool no_sender_left = false;     // ... and it was the last one
    int peer = 0;                    // who left (set by the caller: its id)
  };
  // Forgets a parked peer so the '-L' start does not address it. A peer that had joined the
  // running test ('R' or 'L' answered) leaving means a sender went away mid-test, where a busy
  // check or a port scan closing is nothing.
  Departure on_peer_closed(int peer);
  // The measurement is over: state -> finished (13); parked peers are forgotten. The test's
  // senders stay its participants (their 'E' and results come after) until they leave; no new
  // test starts before (settling()), so nothing can take the finished test's results away.
  void test_finished();
  // A finished test whose senders have not all left yet: the receiver is busy.
  bool settling() const { return state_ == sync_code::kStateFinished && !participants_.empty(); }

  // Why a new test may not start now (what a busy check answers "running" for), and whether it
  // passes by itself in a moment (a finished test's senders still leaving); nullopt when one
  // may. A native sender is told in the receiver's hello.
  struct Busy {
    std::string why;
    bool passing = false;
  };
  std::optional<Busy> busy() const;

  int32_t state() const { return state_; }
  uint32_t negotiated_cycle_s() const { return negotiated_cycle_s_; }
  size_t parked_peers() const { return parked_.size(); }
  // Senders of the current or last test (answered 'R', or parked and then started).
  const std::vector<int>& participants() const { return participants_; }
  bool is_participant(int peer) const;
  // Busy or parked: a peer the receiver is waiting for (no idle limit applies to it).
  bool is_engaged(int peer) const;
  bool is_parked(int peer) const;
  // Said HELLO: an xttcp sender, whose proposal is the cycle it runs (its phases are the test's).
  bool is_native(int peer) const;

 private:
  void query_state(int peer, Outcome& out) const;
  void early_exit(int peer, Outcome& out);
  void start(int peer, Outcome& out);
  void last_client_start(int peer, Outcome& out);
  void negotiate(int peer, int32_t proposal, Outcome& out);
  void turn_light_on(Outcome& out);
  void refuse_start(int peer, const char* why, Outcome& out);
  // Why no new test may start now, or nullptr: a test runs or settles, or the budget is spent.
  const char* why_not_starting() const;

  Config config_;
  int32_t state_;
  uint32_t negotiated_cycle_s_;
  std::vector<int> parked_;        // senders answered 'W', in arrival order
  std::vector<int> participants_;  // senders of the current test (answered 'R' or 'W')
  std::vector<int> native_;        // connections that said HELLO, while open
  bool starts_allowed_ = true;
  // The busy reason last logged (a static string; nullptr: none since): said once per spell.
  mutable const char* last_busy_said_ = nullptr;
};

}  // namespace xttcp
