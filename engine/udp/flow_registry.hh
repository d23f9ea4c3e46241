// UdpFlowRegistry: the per-flow UDP counters of a run, owned by the engine. A receiving worker
// registers a flow the first time one of its datagrams arrives (control path: a lock and an
// allocation once per flow, never per datagram) and then writes its counters alone; the engine
// reads every flow at phase edges and intervals without stopping anyone.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "engine/udp/sequence_tracker.hh"

namespace xttcp::udp {

// Flow id of the datagrams that carry no native header (NTTTCP's payload), one per slot.
inline constexpr uint32_t compat_flow = 0xffffffffu;

struct FlowRecord {
  uint32_t slot = 0;     // the worker's FlowPlan slot (receiver: its port; sender: its flow)
  uint32_t flow_id = 0;  // the sender's flow number from the header, or compat_flow
  UdpFlowSnapshot counters;
};

class UdpFlowRegistry {
 public:
  // Stable for the registry's lifetime.
  UdpFlowCounters& add(uint32_t slot, uint32_t flow_id);
  // Every flow registered so far, in registration order.
  std::vector<FlowRecord> snapshot() const;

  // What the data path uses, set by the workers when they open (read after, from any thread).
  std::atomic<bool> gro{false};
  std::atomic<uint32_t> gso_segments{0};

 private:
  struct Entry {
    uint32_t slot, flow_id;
    std::unique_ptr<UdpFlowCounters> counters;
  };
  mutable std::mutex mutex_;
  std::deque<Entry> entries_;
};

// Sums of several flows: counts add up, jitter is the largest of them (the worst flow).
UdpFlowSnapshot sum(const std::vector<FlowRecord>& flows);
// later − earlier per (slot, flow_id); a flow absent from `earlier` starts from zero.
std::vector<FlowRecord> delta(const std::vector<FlowRecord>& later,
                              const std::vector<FlowRecord>& earlier);
// The flows that received or sent anything since `earlier`, with what they did since: one test
// of a receiver that serves several (-H) sees only its own flows.
std::vector<FlowRecord> active_since(const std::vector<FlowRecord>& later,
                                     const std::vector<FlowRecord>& earlier);

}  // namespace xttcp::udp
