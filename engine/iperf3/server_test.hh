// What one iperf3 test is to the engine (server_run.cc): the spec it runs from the parameters
// its client sent, and what this server refuses of them. Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/backend/data_worker.hh"
#include "engine/iperf3/parameters.hh"
#include "engine/iperf3/results.hh"
#include "engine/run/timeline.hh"
#include "engine/spec.hh"

namespace xttcp::iperf3 {

// 3.12's server gives a test 40 s beyond its time and omit before it gives up on TEST_END.
inline constexpr uint32_t end_grace_s = 40;

// The test's settings as the engine runs them: this server's spec with what the client asked
// (role: receiver, or sender with -R; TCP or UDP with iperf3's datagram head; one flow per
// stream on one port; omit as warm-up; the
// client's end, with 3.12's grace as this end's own; -l, -w, -N, -C; -b and --fq-rate per
// stream when this end sends).
// `sending`: the direction of the group it runs (directions.hh): -R, and --bidir's second group.
TestSpec test_spec(const TestSpec& server, const Parameters& p, bool sending);

// Why this server cannot run what the client asked: an iperf3 error code for its client, and
// the line for its own stderr. nullopt: it can.
struct Refusal {
  int32_t code;
  std::string why;
};
std::optional<Refusal> refusal(const Parameters& p);

}  // namespace xttcp::iperf3
