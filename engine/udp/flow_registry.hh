// UdpFlowRegistry: the per-flow UDP counters of a run, owned by the engine. A receiving worker
// registers a flow the first time one of its datagrams arrives (control path: a lock and an
// allocation once per flow, never per datagram) and then writes its counters alone; the engine
// reads every flow at phase edges and intervals without stopping anyone.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/udp/flow_admission.hh"
#include "engine/udp/sequence_tracker.hh"

namespace xttcp::udp {

// Flow id of the datagrams that carry no native header (NTTTCP's payload), one per slot.
inline constexpr uint32_t compat_flow = 0xffffffffu;
// A receiving socket tracks a bounded number of flows (a peer can invent flow ids, and each
// tracked flow costs about 8 KiB). When its table is full, a new flow takes the place of the one
// silent longest, whose counts move to its slot's `retired_flow` record: totals stay whole,
// only that flow's own figures are no longer listed.
inline constexpr uint32_t retired_flow = 0xfffffffeu;
inline bool is_flow(uint32_t flow_id) { return flow_id != retired_flow; }
// Datagrams of flows no sender of the test declared (flow_admission.hh), per slot: counted
// here (datagrams, bytes), never in the test's totals. Their end markers, which end nothing,
// are counted in foreign_markers_flow's `datagrams`.
inline constexpr uint32_t foreign_flow = 0xfffffffdu;
inline constexpr uint32_t foreign_markers_flow = 0xfffffffcu;
// Datagrams without the header of the run's layout (too short for it, or another payload)
// where every datagram of the test carries one: the test's senders declared their flows
// (native), or the iperf2 layout. Per slot, counted here (datagrams, bytes), never in the
// test's totals, and never a flow.
inline constexpr uint32_t headerless_flow = 0xfffffffbu;
inline bool is_foreign_record(uint32_t flow_id) {
  return flow_id == foreign_flow || flow_id == foreign_markers_flow || flow_id == headerless_flow;
}
// Ids a sender may put in a header: below the records above.
inline bool is_sender_flow_id(uint32_t flow_id) { return flow_id < headerless_flow; }

// The flows one receiving socket may track: `total` shared out over `sockets`, at least 64 (a
// sender's -n flows of one port, several senders with -M) and at most 1024 each.
uint32_t flows_per_socket(uint32_t sockets, uint32_t total = 4096);

// A flow's two ends as its receiver names them (the iperf2 dialect's server: its source and the
// address it came to), "127.0.0.1:5001".
struct FlowEnds {
  uint32_t slot = 0, flow_id = 0;
  std::string local, remote;
};

struct FlowRecord {
  uint32_t slot = 0;     // the worker's FlowPlan slot (receiver: its port; sender: its flow)
  uint32_t flow_id = 0;  // the sender's flow number from the header, or compat_flow
  UdpFlowSnapshot counters;
  // Tells apart two records of one (slot, flow id): a flow retired and later tracked afresh.
  uint64_t serial = 0;
};

class UdpFlowRegistry {
 public:
  explicit UdpFlowRegistry(uint32_t flows_per_socket = udp::flows_per_socket(1))
      : flows_per_socket_(flows_per_socket) {}

  // Stable until retire(flow) or the registry's end.
  UdpFlowCounters& add(uint32_t slot, uint32_t flow_id);
  // Drops the tracked flow `flow` (its single writer calls this) after adding its counts to
  // `into` (its slot's retired_flow record), in one step as the engine sees it: a snapshot
  // holds either the flow or its counts in `into`, never both or neither.
  void retire(const UdpFlowCounters& flow, UdpFlowCounters& into);
  // Every flow registered so far, in registration order.
  std::vector<FlowRecord> snapshot() const;
  // A receiver names flow `flow_id` of `slot` (control path: once per flow). Kept while fewer
  // than 4 x flows_per_socket() are (a sprayer of sources names no more than that).
  void describe(FlowEnds ends);
  // Whether describe() would still keep a name (so a receiver need not work one out).
  bool describes_more() const;
  // Every flow named so far, in the order they were named (the list only grows).
  std::vector<FlowEnds> described() const;

  // What the data path uses, set by the workers when they open (read after, from any thread).
  std::atomic<bool> gro{false};
  std::atomic<uint32_t> gso_segments{0};

  // A receiving socket's bound on the flows it tracks (flows_per_socket()).
  uint32_t flows_per_socket() const { return flows_per_socket_; }
  // Receivers: which flows are a test's (null: every flow). Set before the workers start.
  void set_admission(const FlowAdmission* admission) { admission_ = admission; }
  const FlowAdmission* admission() const { return admission_; }
  // Receivers: called once per socket the first time its table is full (the engine's
  // rate-limited notice). Set before the workers start; may be empty.
  std::function<void(std::string_view line)> on_table_full;

 private:
  struct Entry {
    uint32_t slot, flow_id;
    uint64_t serial;
    std::unique_ptr<UdpFlowCounters> counters;
  };
  uint32_t flows_per_socket_;
  const FlowAdmission* admission_ = nullptr;
  mutable std::mutex mutex_;
  std::list<Entry> entries_;  // a retired flow leaves from the middle
  std::unordered_map<const UdpFlowCounters*, std::list<Entry>::iterator> where_;
  std::vector<FlowEnds> described_;
  uint64_t next_serial_ = 1;
};

// Sums of several flows (the records of untracked flows included, foreign ones not: they are
// no test's): counts add up, jitter is the largest of them (the worst flow).
UdpFlowSnapshot sum(const std::vector<FlowRecord>& flows);
// What the foreign records hold: datagrams and bytes of undeclared flows, their end markers, and
// the datagrams without the run's header (headerless_flow).
struct ForeignCounts {
  uint64_t datagrams = 0, bytes = 0, end_markers = 0;
  uint64_t headerless_datagrams = 0, headerless_bytes = 0;
};
ForeignCounts foreign_counts(const std::vector<FlowRecord>& flows);
// later − earlier per (slot, flow_id); a flow absent from `earlier` starts from zero. A flow
// of `earlier` absent from `later` was retired: its counts then are taken off its slot's
// retired_flow record, which holds them now.
std::vector<FlowRecord> delta(const std::vector<FlowRecord>& later,
                              const std::vector<FlowRecord>& earlier);
// The flows that received or sent anything since `earlier`, with what they did since: one test
// of a receiver that serves several (-H) sees only its own flows.
std::vector<FlowRecord> active_since(const std::vector<FlowRecord>& later,
                                     const std::vector<FlowRecord>& earlier);

}  // namespace xttcp::udp
