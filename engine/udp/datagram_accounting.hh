// Receive-side accounting of one receiving socket (or port): native datagrams by flow and
// sequence (SequenceTracker, registered in the run's UdpFlowRegistry the first time a flow shows
// up), others (NTTTCP's payload) by count. A peer can name any flow id, so the socket tracks at
// most registry.flows_per_socket() flows: past that, a new flow takes the place of another,
// whose counts move to the slot's retired record (flow_registry.hh): one that has not yet shown
// itself a flow (fewer than `settled_datagrams`, as a spray's invented ids) before one that has,
// and among those the one silent longest. Portable: every backend's UDP receiver feeds it, one
// datagram at a time (io_backends/common/udp_accounting splits UDP_GRO trains first).
//
// When the test's senders declared their flows (flow_admission.hh), a datagram of any other
// flow, or without its flow's token, is foreign: counted in the slot's foreign record only (no
// table place, no tracker), not data for the caller; an end marker of such a flow ends nothing.
// Their datagrams all carry xttcp's header, so one without it (shorter than the header, or
// another payload) is headerless: counted in the slot's headerless record, not data either. The
// iperf2 layout's datagrams all carry iperf 2's head: one without it is headerless too.
// Without declarations, a marker ends only a flow that brought this socket data or that names the
// receiver's own count
// (-n): a marker under an invented id alone ends nothing. Such markers are counted as foreign.
//
// Count mode's end markers (end_marker.hh) are not data: the first one of each flow raises the
// flow's expected count to what it sent and ends the flow; repeats of it are ignored. The
// receiver calls announce_ended() once it has counted the bytes received with the marker: that
// calls `on_flow_end` (the receiver's WorkerContext::on_flow_done) for each flow ended since, so
// the engine, which may end the run right then, reads counters that hold every datagram before
// the marker.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/iperf2/udp_datagram.hh"
#include "engine/net/address.hh"
#include "engine/udp/flow_registry.hh"
#include "engine/udp/sequence_tracker.hh"

namespace xttcp::udp {

struct EndMarker;  // end_marker.hh
// What heads the datagrams of a run, chosen once: xttcp's header (datagram_header.hh; NTttcp's
// payload without one), or iperf 2's (engine/iperf2/udp_datagram.hh, the iperf2 dialect). iperf 2
// names no flow: the receiver says whose datagrams come (set_source), by their source port. Or
// iperf3's head, 32- or 64-bit (engine/iperf3/udp_datagram.hh, the iperf3 dialect): a connected
// socket per stream, so the socket's slot is its one flow; a datagram shorter than the head is
// headerless.
enum class DatagramLayout { native, iperf2, iperf3, iperf3_wide };

// The iperf2 layout's stream rules (docs/hostile-peers.md, "The iperf2 server"). iperf 2's own
// server waits for a FIN for ever (unless given -t); its client resends the FIN for 2 s, xttcp's
// for 2.5 s. A stream silent this long ends, reported with what it had: four times the longer
// of those, room for a loaded host, and streams down to 1.2 kbit/s at 1470-byte datagrams.
inline constexpr uint64_t iperf2_silence_ns = 10'000'000'000;
// A FIN is answered at most once per this spacing (iperf 2's server waits 250 ms of silence
// before each repeat), at most iperf2_reports_per_stream times per stream (its 10 tries), and
// never with more report bytes in all than the stream brought: a forged source gets back no more
// than it sent.
inline constexpr uint64_t iperf2_report_spacing_ns = 250'000'000;
inline constexpr uint32_t iperf2_reports_per_stream = 10;
// A flow that has shown this many datagrams keeps its table place before any that has not.
inline constexpr uint32_t settled_datagrams = 4;

// The iperf2 layout: a stream ended (its FIN, silence, or another took its table place), or its
// FIN came again.
enum class StreamEnd : uint8_t { fin, silent, evicted };
struct Iperf2StreamEvent {
  iperf2::ServerReport report;  // its figures as a report gives them (first datagram to now)
  uint32_t flow_id = 0;
  SocketAddress source;  // where its datagrams came from
  StreamEnd how = StreamEnd::fin;
  bool ended_now = false;  // the stream ended with this event: record it (once per stream)
  bool answer = false;     // a FIN to answer now with `report`, within the report budget
};

class DatagramAccounting {
 public:
  // `on_flow_end` may be null or empty; it must outlive this object.
  // iperf2 layout: `on_flow_start` (the receiver's WorkerContext::on_accept) is called for each
  // flow's first datagram, as a TCP stream's accept; may be null or empty.
  DatagramAccounting(UdpFlowRegistry& registry, uint32_t slot,
                     const std::function<void()>* on_flow_end = nullptr,
                     DatagramLayout layout = DatagramLayout::native,
                     const std::function<void()>* on_flow_start = nullptr)
      : registry_(&registry),
        slot_(slot),
        on_flow_end_(on_flow_end),
        on_flow_start_(on_flow_start),
        layout_(layout),
        limit_(registry.flows_per_socket()) {}

  // The iperf2 layout: the flow of the datagrams passed next (their source, hashed), the
  // source itself, and the caller's steady clock now (silence and report spacing are measured
  // on it; the receive times passed to on_datagram may come from another clock).
  void set_source(uint32_t flow_id, const SocketAddress& source, uint64_t steady_ns) {
    source_flow_ = flow_id;
    source_ = source;
    steady_ns_ = steady_ns;
  }
  // The iperf2 layout: what happened to streams since clear_stream_events().
  const std::vector<Iperf2StreamEvent>& stream_events() const { return events_; }
  void clear_stream_events() { events_.clear(); }
  // The iperf2 layout: ends every stream silent for iperf2_silence_ns by `steady_ns` (an event
  // each); call it now and then (it scans the table), then announce_ended().
  void end_silent_streams(uint64_t steady_ns);
  // The iperf2 layout: the flow whose first datagram was the last one passed, once (nullopt:
  // none), so the receiver can name it (UdpFlowRegistry::describe).
  std::optional<uint32_t> take_began() { return std::exchange(began_, std::nullopt); }

  // One datagram of `length` bytes received at `now_ns` (the sender's clock need not agree), of
  // which `available` bytes are in `data` (fewer when read with MSG_TRUNC). Returns false for an
  // end marker, a foreign or a headerless datagram, which the caller must not count as data
  // either.
  bool on_datagram(const unsigned char* data, std::size_t available, std::size_t length,
                   uint64_t now_ns);
  // Native flows tracked now (compat payload is no flow).
  uint32_t flows() const { return static_cast<uint32_t>(flows_.size()); }
  // Flows that gave up their place in the table to a newer one.
  uint64_t flows_retired() const { return retired_count_; }
  // Flows whose end marker arrived (count mode).
  uint32_t flows_ended() const { return ended_; }
  // Count mode: the flow of NTttcp's payload on this socket (one sender thread per port) also
  // ends at its `datagrams`-th datagram, as a real NTttcp sender sends no end marker; ended
  // either way, it ends once. 0 (the default): only markers end it. Also the count a marker of
  // a flow that brought no data must name to end it (ends_a_flow).
  void end_compat_after(uint64_t datagrams) { compat_end_after_ = datagrams; }
  // Calls `on_flow_end` once for each flow ended since the last call (after the caller counted
  // the bytes of what it received so far).
  void announce_ended() {
    if (announced_ != ended_) announce();
  }

 private:
  struct Tracked {
    uint32_t flow_id = 0;
    UdpFlowCounters* counters = nullptr;
    std::unique_ptr<SequenceTracker> tracker;
    bool ended = false;
    uint32_t seen = 0;      // datagrams, up to settled_datagrams: a flow that showed itself
    uint64_t last_ns = 0;   // when its last datagram arrived: the one silent longest makes room
    uint64_t first_ns = 0;  // iperf2 layout: when its first datagram arrived (0: none yet)
    // iperf2 layout, on the caller's steady clock: its last datagram, its last report.
    uint64_t steady_ns = 0;
    uint64_t reported_ns = 0;
    uint32_t reports = 0;  // reports sent
    uint64_t brought = 0;  // bytes of every datagram its source sent, repeated FINs included
  };
  bool on_iperf2(const unsigned char* data, std::size_t available, std::size_t length,
                 uint64_t now_ns);
  bool on_iperf3(const unsigned char* data, std::size_t available, std::size_t length,
                 uint64_t now_ns);
  void count_unsequenced(std::size_t length);
  bool count_headerless(std::size_t length);  // always false: not data
  Tracked& tracked(uint32_t flow_id);
  Tracked& make_room(uint32_t flow_id);
  UdpFlowCounters& retired_record();
  UdpFlowCounters& record(UdpFlowCounters*& cached, uint32_t flow_id);
  // The declarations of the test under way, refreshed when a test started.
  const FlowRules& rules();
  // Whether `flow_id` with `token` is the test's (always, without declarations).
  bool admitted(uint32_t flow_id, uint16_t token);
  // The iperf2 layout: `flow` ends (`how`) or its FIN came again: an event with its figures at
  // `end_ns` (receive clock).
  void stream_event(Tracked& flow, std::size_t place, StreamEnd how, uint64_t end_ns,
                    bool ended_now, bool answer);
  // The iperf2 layout: whether a report may answer `flow`'s FIN now (and it is counted sent).
  bool report_budget(Tracked& flow);
  void on_end_marker(const unsigned char* data, std::size_t available);
  bool ends_a_flow(const EndMarker& marker) const;
  void flow_ended() { ++ended_; }
  void announce();

  UdpFlowRegistry* registry_;
  uint32_t slot_;
  const std::function<void()>* on_flow_end_;
  const std::function<void()>* on_flow_start_;
  DatagramLayout layout_;
  uint32_t source_flow_ = 0;
  SocketAddress source_;
  uint64_t steady_ns_ = 0;
  std::vector<SocketAddress> sources_;  // iperf2 layout: each place's source (as flows_)
  std::vector<Iperf2StreamEvent> events_;
  std::optional<uint32_t> began_;
  uint32_t limit_;                                // flows tracked at most
  std::vector<Tracked> flows_;                    // a last-hit cache, then the index
  std::unordered_map<uint32_t, uint32_t> index_;  // flow id -> place in flows_
  uint32_t last_ = 0;
  UdpFlowCounters* retired_ = nullptr;  // this slot's retired_flow record, once needed
  UdpFlowCounters* foreign_ = nullptr;  // its foreign_flow record, once needed
  UdpFlowCounters* foreign_markers_ = nullptr;
  UdpFlowCounters* headerless_ = nullptr;  // its headerless_flow record, once needed
  FlowRules rules_;                        // the declarations as of rules_generation_
  uint32_t rules_generation_ = 0;
  uint64_t retired_count_ = 0;
  bool told_full_ = false;
  std::unique_ptr<SequenceTracker> compat_;
  std::vector<uint32_t> ended_compat_;  // flows of compat data whose end marker arrived
  uint64_t compat_end_after_ = 0;
  uint64_t compat_seen_ = 0;
  bool compat_ended_ = false;  // with compat_end_after_: by its count or a marker
  uint32_t ended_ = 0;
  uint32_t announced_ = 0;
};

}  // namespace xttcp::udp
