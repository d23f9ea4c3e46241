// A --reverse or --bidir test's data roles (docs/usage.md, "Reverse"): the sender (-s) makes the
// connections on the receiver's one port and receives on them; the receiver (-r) sends on them.
// Each end keeps its control role; these are the specs its workers run. Pure.
#pragma once

#include "base/status.hh"
#include "engine/spec.hh"

namespace xttcp {

// The largest send a --reverse sender may ask the receiver to make per call: the receiver
// allocates it per worker, for a peer it does not know.
inline constexpr uint32_t max_reverse_send_bytes = 16u << 20;

// "--bidir" or "--reverse", as a test's sender asked it: the option its lines name.
inline const char* reverse_option(const TestSpec& asked) {
  return asked.workload.bidir ? "--bidir" : "--reverse";
}

// Whether a test's sender asked the receiver to send (--reverse, or --bidir's second direction).
inline bool receiver_sends(const TestSpec& asked) {
  return asked.workload.reverse || asked.workload.bidir;
}

// Every TCP data connection a sender makes: its P x n x l, one set each way with --bidir.
inline uint64_t connections_made(const TestSpec& asked) {
  return asked.sender_connections() * (asked.workload.bidir ? 2 : 1);
}

// The -s end's workers: they receive, one flow per connection it makes (P x n x l, in flow
// order), with its own buffer size and placement.
TestSpec reverse_receiving_spec(const TestSpec& own);

// The -r end's workers for the test `asked` (its sender's spec, from its hello): they send its
// workload (buffer size, rates, phases) on its P x n x l connections, placed as this receiver
// places its own. An error (one line) when it asks more than this receiver sends for a peer.
Expected<TestSpec> reverse_sending_spec(const TestSpec& own, const TestSpec& asked);

}  // namespace xttcp
