// Which native UDP flows speak for a test. A sender's flow ids are its random base | slot
// (engine/run/worker_pool.cc), and every datagram of its carries its random 16-bit token
// (datagram_header.hh); an xttcp sender on the sync port declares its base, flow count and
// token in its hello, and when a test starts the receiver's control plane declares its
// senders' flows here. From then on a datagram of any other flow id, or of a declared flow id
// without its token (a spray of invented ids, one over every base, someone else's sender), is
// foreign: counted apart, never in the test's bytes or datagrams, and its end markers end
// nothing. The token keeps out whoever does not see the sync connection: a spray must guess
// base and token together (1 in 4095 * 65535 per datagram), where the base alone is 1 in 4095.
// Without declarations (-N, the Windows dialect, a sender that declared nothing) every flow is the
// test's, as before.
//
// Written by the control thread once per test; read by each receiving socket's accounting,
// which checks one relaxed generation number per datagram and copies the declarations when it
// changed (no lock on the data path).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

namespace xttcp::udp {

// One sender's flows: ids base | slot for slot < count, each datagram carrying `token`
// (0: a sender older than tokens, whose datagrams carry 0 there).
struct DeclaredFlows {
  uint32_t base = 0;
  uint32_t count = 0;
  uint16_t token = 0;
  bool operator==(const DeclaredFlows&) const = default;
};

// The flow-id bits that are the slot; the rest is the sender's base.
inline constexpr uint32_t flow_slot_bits = 20;
inline constexpr uint32_t flow_slot_mask = (1u << flow_slot_bits) - 1;
// A base a sender may use: 1..4095 in the high 12 bits, nothing in the slot bits.
inline bool valid_flow_base(uint32_t base) { return base != 0 && (base & flow_slot_mask) == 0; }

// Declarations as one socket's accounting holds them (its own copy).
struct FlowRules {
  bool declared = false;  // false: every flow is the test's
  std::vector<DeclaredFlows> flows;
  // A datagram's flow id and token: the token costs one compare, only for a declared id (two
  // senders of a test may have drawn one base).
  bool admits(uint32_t flow_id, uint16_t token) const {
    if (!declared) return true;
    for (const DeclaredFlows& f : flows)
      if ((flow_id & ~flow_slot_mask) == f.base && (flow_id & flow_slot_mask) < f.count &&
          token == f.token)
        return true;
    return false;
  }
};

class FlowAdmission {
 public:
  // A test starts whose senders declared `flows` (nullopt: one of them declared nothing, so
  // every flow is the test's).
  void declare(std::optional<std::vector<DeclaredFlows>> flows);
  // Only declared flows are a test's from now on; none yet (a sync receiver before its first
  // test: any native datagram is foreign until a sender declares its flows).
  void require_declarations() { declare(std::vector<DeclaredFlows>{}); }

  uint32_t generation() const { return generation_.load(std::memory_order_acquire); }
  FlowRules rules() const;

 private:
  mutable std::mutex mutex_;
  FlowRules rules_;
  std::atomic<uint32_t> generation_{0};
};

}  // namespace xttcp::udp
