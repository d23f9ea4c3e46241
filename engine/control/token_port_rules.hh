// The receiver's rules for NTttcp for Windows' token ports (docs/hostile-peers.md), pure: the
// socket loop (token_server.cc) says what happened and does what these decide. Every connection
// to a thread's token port is a candidate. A candidate's token counts for the thread once its
// byte came and its host stands as the thread's sender (token_standing); only then does it get
// the receiver's 'X', and the thread is done. A candidate is closed, the port listening on, when
// it stays silent or unproven for token_wait, when it cannot be the sender, when it is the
// oldest of more than candidates_per_port, or when its thread's token came from another.
// Once one thread's token counted, the others must follow within rest_of_tokens_wait, else the
// exchange starts over (nobody's partial exchange holds the receiver).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/control/sender_evidence.hh"

namespace xttcp {

// Whether a token connection may be the thread's sender's: yes; not known yet; or never, because
// it came before its host's data connection, or -sp handed the thread's port to other hosts.
enum class TokenStanding { eligible, unproven, early, not_handed_out };

// What identifies a thread's sender (docs/hostile-peers.md). TCP: a data connection from the
// same host on the thread's data port, seen no later than data_report_slack after the token
// connection was accepted (the sender connects its data port first; a later one: early);
// without one yet, unproven. -sp: the thread's data port was handed out to that host (TCP: else
// not_handed_out; UDP: else unproven, the hand-out being recorded as it leaves). UDP without -sp:
// nothing precedes the token, so every connection is eligible.
TokenStanding token_standing(const SenderEvidence& evidence, uint16_t data_port,
                             const std::string& host, SenderEvidence::Clock::time_point accepted,
                             bool tcp, bool port_assignment);

class TokenPortRules {
 public:
  using Clock = std::chrono::steady_clock;
  using Id = uint64_t;
  // The standing of a candidate of thread `port` (index) from `host`, accepted at `accepted`.
  using Judge =
      std::function<TokenStanding(std::size_t port, const std::string& host, Clock::time_point)>;

  // Why a candidate is closed.
  enum class Why {
    silent,          // no byte within token_wait
    unproven,        // its byte came, but its host never stood as the sender within token_wait
    early,           // TokenStanding::early: it came before its host's data connection
    not_handed_out,  // TokenStanding::not_handed_out: -sp gave the port to other hosts
    crowded,         // the oldest of more than candidates_per_port on its port
    taken,           // its thread's token came on another connection
  };
  struct Closed {
    Id id = 0;
    std::size_t port = 0;
    std::string host;
    Why why = Why::silent;
  };
  struct Counted {
    Id id = 0;
    std::size_t port = 0;
    std::string host;
  };
  struct Step {
    std::vector<Counted> counted;  // send each its 'X'
    std::vector<Closed> closed;    // close each
    std::size_t started_over = 0;  // > 0: that many threads' tokens no longer count
  };

  TokenPortRules(std::size_t ports, Judge judge)
      : counted_(ports, false), judge_(std::move(judge)) {}

  // A connection accepted on thread `port`'s token port at `now`. A port over
  // candidates_per_port closes one (`closed`): the oldest that sent nothing, else the oldest.
  Id accepted(std::size_t port, std::string host, Clock::time_point now,
              std::vector<Closed>& closed);
  // The candidate's byte came.
  void token_read(Id id);
  // The candidate closed or failed: it is forgotten.
  void gone(Id id);
  // A counted candidate's 'X' could not be sent: its thread waits for its token again.
  void send_failed(const Counted& counted);
  // What to do now: deadlines, standings, counts.
  Step decide(Clock::time_point now);

  // Whether thread `port` still waits for its token (its listener is served).
  bool waiting(std::size_t port) const { return !counted_[port]; }
  bool all_counted() const { return counted_total_ == counted_.size(); }
  std::size_t counted() const { return counted_total_; }
  std::size_t candidates() const { return candidates_.size(); }

 private:
  struct Candidate {
    Id id = 0;
    std::size_t port = 0;
    std::string host;
    Clock::time_point accepted{};
    bool token = false;  // its byte came
  };
  void close(std::size_t index, Why why, std::vector<Closed>& closed);

  std::vector<bool> counted_;  // per thread
  std::size_t counted_total_ = 0;
  std::optional<Clock::time_point> first_counted_;
  std::vector<Candidate> candidates_;  // in order of acceptance
  Id next_id_ = 1;
  Judge judge_;
};

}  // namespace xttcp
