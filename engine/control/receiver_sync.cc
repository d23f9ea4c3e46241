#include "engine/control/receiver_sync.hh"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "engine/control/sync_codes.hh"

namespace xttcp {

namespace {

// NTTTCP-for-Linux accepts at most 8 sender hosts; the last seat is the '-L' sender's. Without
// -M the same bound holds for senders joining a running test.
constexpr size_t kMaxSenders = 8;
constexpr size_t kMaxParked = kMaxSenders - 1;

int32_t as_wire(uint32_t seconds) {
  return static_cast<int32_t>(
      std::min<uint32_t>(seconds, static_cast<uint32_t>(std::numeric_limits<int32_t>::max())));
}

}  // namespace

ReceiverSync::ReceiverSync(Config config)
    : config_(config),
      state_(sync_code::kStateNotStarted),
      negotiated_cycle_s_(config.own_cycle_s) {}

ReceiverSync::Outcome ReceiverSync::on_request(int peer, int32_t request) {
  Outcome out;
  switch (request) {
    case sync_code::kHello:
      out.native_hello = true;
      if (!is_native(peer)) native_.push_back(peer);
      out.replies.push_back({peer, sync_code::kHelloAck});
      break;
    case sync_code::kQueryState: query_state(peer, out); break;
    case sync_code::kEarlyExit: early_exit(peer, out); break;
    case sync_code::kStart: start(peer, out); break;
    case sync_code::kLastClientStart: last_client_start(peer, out); break;
    default: negotiate(peer, request, out); break;
  }
  return out;
}

void ReceiverSync::query_state(int peer, Outcome& out) const {
  // A receiver that would refuse a start says it is busy, so a sender stops at its busy check;
  // why is said here, where its user looks (the wire has no word for it).
  const char* why = state_ != sync_code::kStateRunning ? why_not_starting() : nullptr;
  // Said once per reason, not at every ask (a sender waiting for a passing spell asks again).
  if (why != nullptr && why != last_busy_said_)
    out.log_info.push_back(fmt::format("told a sender this receiver is busy: {}", why));
  last_busy_said_ = why;
  out.replies.push_back({peer, why != nullptr ? sync_code::kStateRunning : state_});
}

std::optional<ReceiverSync::Busy> ReceiverSync::busy() const {
  const char* why = why_not_starting();
  if (why == nullptr) return std::nullopt;
  return Busy{why, state_ != sync_code::kStateRunning && settling()};
}

const char* ReceiverSync::why_not_starting() const {
  if (state_ == sync_code::kStateRunning) return "a test is running";
  if (settling()) return "the last test's senders have not all left yet";
  if (!starts_allowed_) return "it has started too many tests lately (a flood?)";
  return nullptr;
}

bool ReceiverSync::is_native(int peer) const {
  return std::find(native_.begin(), native_.end(), peer) != native_.end();
}

bool ReceiverSync::is_parked(int peer) const {
  return std::find(parked_.begin(), parked_.end(), peer) != parked_.end();
}

bool ReceiverSync::is_participant(int peer) const {
  return std::find(participants_.begin(), participants_.end(), peer) != participants_.end();
}

bool ReceiverSync::is_engaged(int peer) const { return is_participant(peer) || is_parked(peer); }

void ReceiverSync::early_exit(int peer, Outcome& out) {
  if (!is_participant(peer)) {
    // Only a sender of the test may stop it or hand in a result for it.
    out.replies.push_back({peer, state_});
    return;
  }
  out.result_may_follow = true;
  if (state_ == sync_code::kStateRunning) {
    state_ = sync_code::kStateFinished;
    parked_.clear();
    out.stop_early = true;
    out.log_info.push_back("test exited because sender side was interrupted");
  }
  out.replies.push_back({peer, state_});
}

void ReceiverSync::turn_light_on(Outcome& out) {
  participants_.insert(participants_.end(), parked_.begin(), parked_.end());
  state_ = sync_code::kStateRunning;
  out.start = true;
  out.log_info.push_back("Network activity progressing...");
}

void ReceiverSync::start(int peer, Outcome& out) {
  if (state_ == sync_code::kStateRunning && is_participant(peer)) {
    out.replies.push_back({peer, sync_code::kStart});  // a repeat changes nothing
    return;
  }
  if (!config_.multi_clients) {
    // A test belongs to the sender that started it: nobody joins it, not even a sender that
    // raced past its busy check (NTTTCP lets that one in).
    if (const char* why = why_not_starting()) return refuse_start(peer, why, out);
    participants_.clear();
    participants_.push_back(peer);
    turn_light_on(out);
    out.replies.push_back({peer, sync_code::kStart});
    return;
  }
  if (state_ == sync_code::kStateRunning) {
    // NTTTCP would park this sender forever; refusing lets it report "not ready".
    return refuse_start(peer, "a test is running (-M: every sender parks before the -L one)", out);
  }
  if (is_parked(peer)) {
    out.replies.push_back({peer, sync_code::kPleaseWait});
    return;
  }
  if (parked_.size() >= kMaxParked) {
    out.log_error.push_back(
        fmt::format("too many senders: at most {} may wait for the last client ('-L'); "
                    "rejected one",
                    kMaxParked));
    out.replies.push_back({peer, sync_code::kEarlyExit});
    return;
  }
  parked_.push_back(peer);
  out.replies.push_back({peer, sync_code::kPleaseWait});
}

void ReceiverSync::refuse_start(int peer, const char* why, Outcome& out) {
  out.log_error.push_back(fmt::format("start refused: {}", why));
  out.replies.push_back({peer, sync_code::kEarlyExit});
}

void ReceiverSync::last_client_start(int peer, Outcome& out) {
  if (!config_.multi_clients) {
    // NTTTCP logs and replies a stale value; any non-'R' makes its sender say "not ready".
    out.log_error.push_back(
        "a sender says it is the last client ('-L') but this receiver is not in multi-client "
        "mode ('-M'); that sender is ignored");
    out.replies.push_back({peer, sync_code::kEarlyExit});
    return;
  }
  if (const char* why = why_not_starting()) return refuse_start(peer, why, out);
  // Exactly one 'R' per sender, the '-L' sender last (NTTTCP sends it a second one: #9). It
  // may have parked itself first ('R', then 'L'): it is still one sender of the test.
  parked_.erase(std::remove(parked_.begin(), parked_.end(), peer), parked_.end());
  participants_.clear();
  turn_light_on(out);  // the parked senders, then this one
  participants_.push_back(peer);
  for (int parked : parked_) out.replies.push_back({parked, sync_code::kStart});
  out.replies.push_back({peer, sync_code::kStart});
  parked_.clear();
}

void ReceiverSync::negotiate(int peer, int32_t proposal, Outcome& out) {
  // What this receiver lets a sender's word make of a cycle (--max-cycle; 0 = no limit).
  const uint32_t cap = config_.max_cycle_s == 0
                           ? sync_code::kMaxCycleSeconds
                           : std::min(config_.max_cycle_s, sync_code::kMaxCycleSeconds);
  uint32_t answer;
  if (config_.multi_clients) {
    answer = config_.duration_s;  // every sender follows the receiver's -t
  } else if (is_native(peer) && proposal >= 0 && (proposal != 0 || config_.max_cycle_s == 0)) {
    // Two xttcp peers: the test the sender asked for is the test that runs (the receiver runs
    // its phases, not its own -t), within --max-cycle.
    answer = proposal == 0 ? 0 : std::min(static_cast<uint32_t>(proposal), cap);
    if (answer < static_cast<uint32_t>(proposal))
      out.log_error.push_back(
          fmt::format("a sender proposed a test cycle of {} s, above this receiver's maximum of "
                      "{} s (--max-cycle); answered {} s",
                      proposal, cap, answer));
  } else if (proposal == 0) {
    if (config_.duration_s == 0 || config_.max_cycle_s == 0) {
      if (config_.duration_s != 0)
        out.log_info.push_back("test is negotiated to run with continuous mode");
      answer = 0;
    } else {
      answer = std::max(cap, config_.duration_s);
      out.log_error.push_back(fmt::format(
          "a sender asked for a continuous test (-t 0); this receiver allows at most {} s "
          "(--max-cycle): answered {} s",
          cap, answer));
    }
  } else if (proposal < 0) {
    // Not a duration (HELLO is handled above); answer like NTTTCP does: its own -t.
    answer = config_.duration_s;
  } else if (config_.duration_s == 0) {
    answer = 0;  // receiver is continuous: so is the sender
  } else if (config_.duration_s < static_cast<uint32_t>(proposal)) {
    answer = std::max(std::min(static_cast<uint32_t>(proposal), cap), config_.duration_s);
    if (answer < static_cast<uint32_t>(proposal))
      out.log_error.push_back(
          fmt::format("a sender proposed a test cycle of {} s, above this receiver's maximum of "
                      "{} s (--max-cycle); answered {} s",
                      proposal, cap, answer));
    out.log_info.push_back(fmt::format("Test cycle time negotiated is: {} seconds", answer));
  } else {
    answer = config_.duration_s;
  }
  // A proposal during a running test must not change that test's cycle.
  if (state_ != sync_code::kStateRunning) negotiated_cycle_s_ = answer;
  out.negotiated_cycle_s = answer;
  out.replies.push_back({peer, as_wire(answer)});
}

ReceiverSync::Departure ReceiverSync::on_peer_closed(int peer) {
  parked_.erase(std::remove(parked_.begin(), parked_.end(), peer), parked_.end());
  native_.erase(std::remove(native_.begin(), native_.end(), peer), native_.end());
  auto found = std::find(participants_.begin(), participants_.end(), peer);
  if (found == participants_.end()) return {};
  participants_.erase(found);
  if (state_ != sync_code::kStateRunning) return {};
  return {true, participants_.empty()};
}

void ReceiverSync::test_finished() {
  state_ = sync_code::kStateFinished;
  parked_.clear();
}

}  // namespace xttcp
