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
  out.replies.push_back({peer, state_});
}

bool ReceiverSync::is_participant(int peer) const {
  return std::find(participants_.begin(), participants_.end(), peer) != participants_.end();
}

bool ReceiverSync::is_engaged(int peer) const {
  return is_participant(peer) || std::find(parked_.begin(), parked_.end(), peer) != parked_.end();
}

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
  if (!config_.multi_clients) {
    // A second sender racing past its busy check joins the running test, as in NTTTCP.
    if (state_ != sync_code::kStateRunning) {
      participants_.clear();
      turn_light_on(out);
    } else if (is_participant(peer)) {
      out.replies.push_back({peer, sync_code::kStart});
      return;
    } else if (participants_.size() >= kMaxSenders) {
      out.log_error.push_back(
          fmt::format("too many senders: at most {} may join one test; rejected one", kMaxSenders));
      out.replies.push_back({peer, sync_code::kEarlyExit});
      return;
    }
    participants_.push_back(peer);
    out.replies.push_back({peer, sync_code::kStart});
    return;
  }
  if (state_ == sync_code::kStateRunning) {
    // NTTTCP would park this sender forever; refusing lets it report "not ready".
    out.log_error.push_back("a sender asked to join a test that is already running; rejected");
    out.replies.push_back({peer, sync_code::kEarlyExit});
    return;
  }
  if (std::find(parked_.begin(), parked_.end(), peer) != parked_.end()) {
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

void ReceiverSync::last_client_start(int peer, Outcome& out) {
  if (!config_.multi_clients) {
    // NTTTCP logs and replies a stale value; any non-'R' makes its sender say "not ready".
    out.log_error.push_back(
        "a sender says it is the last client ('-L') but this receiver is not in multi-client "
        "mode ('-M'); that sender is ignored");
    out.replies.push_back({peer, sync_code::kEarlyExit});
    return;
  }
  if (state_ == sync_code::kStateRunning) {
    out.log_error.push_back(
        "a second last client ('-L') arrived while the test is running; rejected");
    out.replies.push_back({peer, sync_code::kEarlyExit});
    return;
  }
  // Exactly one 'R' per sender, the '-L' sender last (NTTTCP sends it a second one: #9). It
  // may have parked itself first ('R', then 'L'): it is still one sender of the test.
  parked_.erase(std::remove(parked_.begin(), parked_.end(), peer), parked_.end());
  participants_.clear();
  turn_light_on(out);
  participants_.push_back(peer);
  for (int parked : parked_) out.replies.push_back({parked, sync_code::kStart});
  out.replies.push_back({peer, sync_code::kStart});
  parked_.clear();
}

void ReceiverSync::negotiate(int peer, int32_t proposal, Outcome& out) {
  uint32_t answer;
  if (config_.multi_clients) {
    answer = config_.duration_s;  // every sender follows the receiver's -t
  } else if (proposal == 0) {
    if (config_.duration_s != 0)
      out.log_info.push_back("test is negotiated to run with continuous mode");
    answer = 0;
  } else if (proposal < 0) {
    // Not a duration (HELLO is handled above); answer like NTTTCP does: its own -t.
    answer = config_.duration_s;
  } else if (config_.duration_s == 0) {
    answer = 0;  // receiver is continuous: so is the sender
  } else if (config_.duration_s < static_cast<uint32_t>(proposal)) {
    answer = std::min(static_cast<uint32_t>(proposal), sync_code::kMaxCycleSeconds);
    if (answer < static_cast<uint32_t>(proposal))
      out.log_error.push_back(
          fmt::format("a sender proposed a test cycle of {} s, above the maximum of {} s; capped",
                      proposal, sync_code::kMaxCycleSeconds));
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
