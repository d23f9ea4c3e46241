// --rr (request/response, docs/rr.md): what TestSpec holds for it. Each flow of the requester
// (-s) keeps `depth` requests of -b bytes in flight; the responder (-r) answers each with
// response_bytes(). Kept in its own struct so TestSpec embeds it in one line.
#pragma once

#include <cstdint>
#include <optional>

namespace xttcp {

struct RrSpec {
  bool on = false;                        // --rr
  uint32_t depth = 1;                     // --rr-depth: transactions in flight per flow
  std::optional<uint32_t> response_size;  // --response-size; nullopt = the request's size (-b)
  uint32_t delay_us = 0;                  // --rr-delay-us: the responder holds each response

  uint32_t response_bytes(uint32_t request_bytes) const {
    return response_size.value_or(request_bytes);
  }
};

namespace rr_limits {
inline constexpr uint32_t max_depth = 4096;
// Every --rr flow keeps its own latency histogram (35 KB), and each edge of the window copies
// them all: this bounds that memory to ~35 MB per copy.
inline constexpr uint64_t max_flows = 1024;
// --rr -b default (netperf's *_RR and sockperf use small messages too).
inline constexpr uint32_t default_request_bytes = 64;
// UDP requests and responses carry the request's send time in their first 8 bytes.
inline constexpr uint32_t udp_min_bytes = 8;
// A UDP request of at least this many bytes also carries its flow id (4 bytes) and the
// requester's token (2) after the send time, declared in its hello: a responder answers with
// more bytes than a request brought only to a request that names a flow of the test with its
// token (docs/rr.md, "Who gets an answer").
inline constexpr uint32_t udp_proof_bytes = 14;
// Below the UDP requester's loss pause (200 ms), so a held answer is never taken for a lost one.
inline constexpr uint32_t max_delay_us = 100'000;
}  // namespace rr_limits

}  // namespace xttcp
