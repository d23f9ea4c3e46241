// Who gets an answer from a UDP --rr responder (docs/rr.md, "Who gets an answer"; header-only and
// portable: the epoll, io_uring and iocp responders use it alike). A responder answers any
// source, and a UDP source can be forged: an answer larger than what came would make it a
// reflector that multiplies a forger's traffic towards its victim. So:
//   - a datagram shorter than a request (-b) is none: no answer (a requester sends -b bytes);
//   - an answer no larger than the datagram is sent to anyone;
//   - a larger one (--response-size above -b) only to a request that shows it is the test's: it
//     carries, after its send time, the flow id and token its requester declared in its hello
//     (rr_limits::udp_proof_bytes; udp/flow_admission.hh). Any other gets no answer.
// A forged source never gets back more bytes than it sent. Each refusal is counted, for a note.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/backend/data_worker.hh"
#include "engine/rr_spec.hh"
#include "engine/udp/flow_admission.hh"
#include "engine/udp/flow_registry.hh"

namespace xttcp {

// A UDP request's proof, after its 8-byte send time: flow id (u32) and token (u16), big-endian.
inline void write_rr_proof(unsigned char* request, uint32_t flow_id, uint16_t token) {
  unsigned char* p = request + rr_limits::udp_min_bytes;
  for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(flow_id >> (24 - 8 * i));
  p[4] = static_cast<unsigned char>(token >> 8);
  p[5] = static_cast<unsigned char>(token);
}
inline void read_rr_proof(const unsigned char* request, uint32_t& flow_id, uint16_t& token) {
  const unsigned char* p = request + rr_limits::udp_min_bytes;
  flow_id = uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3];
  token = static_cast<uint16_t>(p[4] << 8 | p[5]);
}

// A requester's flow `slot` (context: its base and token) writes its proof in `count` UDP
// requests of `request` bytes laid out back to back from `first`, when they have room for it.
inline void prove_rr_requests(unsigned char* first, std::size_t count, uint32_t request,
                              const WorkerContext& context, uint32_t slot) {
  if (request < rr_limits::udp_proof_bytes) return;
  for (std::size_t i = 0; i < count; ++i)
    write_rr_proof(first + i * request, context.udp_flow_base | slot, context.udp_flow_token);
}

class UdpRrGate {
 public:
  UdpRrGate() = default;
  // `request`, `response`: this responder's -b and --response-size. `admission`: the run's
  // (null: nobody shows itself the test's).
  UdpRrGate(uint32_t request, uint32_t response, const udp::FlowAdmission* admission)
      : request_(request), response_(response), admission_(admission) {}

  // The bytes to send back for a datagram of `received` bytes, `present` of them in `data`
  // (0: no answer).
  uint32_t answer(const unsigned char* data, std::size_t present, std::size_t received) {
    if (received < request_) {
      ++short_;
      return 0;
    }
    if (response_ <= received || proven(data, present)) return response_;
    ++unproven_;
    return 0;
  }
  // finish(): the datagrams not answered, as a note (none: nothing).
  void note(WorkerReport& report) const {
    if (short_ + unproven_ == 0) return;
    report.notes.push_back(
        "--rr: " + std::to_string(short_ + unproven_) + " datagram(s) not answered: " +
        std::to_string(short_) + " shorter than a request (" + std::to_string(request_) +
        " bytes), " + std::to_string(unproven_) + " asking a " + std::to_string(response_) +
        "-byte answer without naming a flow of the test with its token (docs/rr.md)");
  }

 private:
  bool proven(const unsigned char* data, std::size_t present) {
    if (admission_ == nullptr || present < rr_limits::udp_proof_bytes) return false;
    if (const uint32_t generation = admission_->generation(); generation != generation_) {
      rules_ = admission_->rules();  // a test started: its requesters' declarations
      generation_ = generation;
    }
    uint32_t flow_id;
    uint16_t token;
    read_rr_proof(data, flow_id, token);
    return rules_.declared && udp::is_sender_flow_id(flow_id) && rules_.admits(flow_id, token);
  }

  uint32_t request_ = 0, response_ = 0;
  const udp::FlowAdmission* admission_ = nullptr;
  udp::FlowRules rules_;
  uint32_t generation_ = 0;
  uint64_t short_ = 0, unproven_ = 0;
};

// The gate of a responder running in `context` (UDP --rr).
inline UdpRrGate rr_udp_gate(const WorkerContext& context, uint32_t request, uint32_t response) {
  return UdpRrGate(request, response,
                   context.udp_flows != nullptr ? context.udp_flows->admission() : nullptr);
}

}  // namespace xttcp
