// Two xttcp peers agree on the workload before it runs (docs/usage.md, "First hour"): each end
// holds the other's full spec from the hello, and what the sender asks for that the receiver
// cannot serve as asked is refused at the hello, on both ends, in one line naming both settings.
// Pure.
#pragma once

#include <optional>
#include <string>

#include "base/status.hh"
#include "engine/spec.hh"

namespace xttcp {

// Why `sender` and `receiver` cannot run one test: the protocol (-u), request/response (--rr)
// and its sizes (-b, --response-size), or ports the receiver does not listen on (-P). Nothing
// when they can.
std::optional<std::string> workload_mismatch(const TestSpec& sender, const TestSpec& receiver);

// The spec a native peer's hello carries (its "spec"), read within the hello's bounds.
Expected<TestSpec> spec_in_hello(const std::string& hello);

// The receiver's refusal of a sender's hello ({"type":"hello","refused":"why"}), if it is one.
std::optional<std::string> refusal_in_hello(const std::string& hello);

// A receiver that may not start a test now says why in its hello ({"busy": {"why", "passing"}}),
// and whether it passes by itself in a moment (its last test's senders still leaving).
struct ReceiverBusy {
  std::string why;  // printable, at most 400 bytes
  bool passing = false;
};
std::optional<ReceiverBusy> busy_in_hello(const std::string& hello);

// Why the cycle a native `receiver` answered is not the one this sender proposed, in one line
// naming whose setting wins and how to change it; nothing when they agree. With -M the
// receiver's -t is every sender's; otherwise only its --max-cycle can cut a proposal.
std::optional<std::string> cycle_disagreement(uint32_t proposed_s, uint32_t answered_s,
                                              const TestSpec& receiver);

// The phases a receiver runs for a native sender: the sender's warm-up, duration and
// cool-down, so the test the sender asked for is the test that runs (the receiver's own apply to
// NTTTCP senders, which say nothing of theirs).
struct TestPhases {
  uint32_t warmup_s = 0;
  uint32_t duration_s = 0;
  uint32_t cooldown_s = 0;
  bool operator==(const TestPhases&) const = default;
};
TestPhases phases_of(const TestSpec& spec);
// The cycle the phases make (warm-up + duration + cool-down), as the sender proposes it.
uint32_t cycle_of(const TestPhases& phases);
// The spec with `phases` in place of its own.
TestSpec with_phases(TestSpec spec, const TestPhases& phases);
// "-t 3" or "-W 1 -t 3 -C 1": phases as a command line gives them.
std::string describe_phases(const TestPhases& phases);

}  // namespace xttcp
