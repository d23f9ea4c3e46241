#include "engine/run/stream_figures.hh"

namespace xttcp {

namespace {

uint64_t grown(uint64_t now, uint64_t before) { return now >= before ? now - before : 0; }

std::vector<StreamInterval> slot_streams(const StreamEdges& e) {
  std::vector<StreamInterval> out;
  if (e.flows_now == nullptr) return out;
  const std::vector<CounterSnapshot>& now = *e.flows_now;
  out.resize(now.size());
  for (std::size_t slot = 0; slot < now.size(); ++slot) {
    StreamInterval& s = out[slot];
    s.key = slot;
    const CounterSnapshot before = e.flows_before != nullptr && slot < e.flows_before->size()
                                       ? (*e.flows_before)[slot]
                                       : CounterSnapshot{};
    s.bytes = grown(now[slot].bytes, before.bytes);
    s.operations = grown(now[slot].operations, before.operations);
  }
  // UDP: a receiver's slot is one stream only with layout.one_port (a connected socket each).
  if (e.udp && e.udp_delta != nullptr)
    for (const udp::FlowRecord& r : *e.udp_delta) {
      if (r.slot >= out.size() || !udp::is_sender_flow_id(r.flow_id)) continue;
      StreamInterval& s = out[r.slot];
      s.datagrams += r.counters.datagrams;
      if (e.role == Role::sender) continue;
      s.lost += r.counters.lost();
      s.reordered += r.counters.reordered;
      s.jitter_ns = r.counters.jitter_ns;
    }
  if (!e.udp && e.readings_now != nullptr && e.connections != nullptr)
    for (std::size_t k = 0; k < e.readings_now->size() && k < e.connections->size(); ++k) {
      const uint32_t slot = (*e.readings_now)[k].slot;
      if (slot < out.size() && !out[slot].tcp) out[slot].tcp = (*e.connections)[k];
    }
  return out;
}

std::vector<StreamInterval> tcp_receiver_streams(const StreamEdges& e) {
  std::vector<StreamInterval> out;
  if (!e.tallies || e.readings_now == nullptr) return out;
  const std::vector<ConnectionWatch::Reading>& now = *e.readings_now;
  static const std::vector<ConnectionWatch::Reading> none;
  const std::vector<ConnectionWatch::Reading>& before =
      e.readings_before != nullptr ? *e.readings_before : none;
  auto earlier = before.begin();  // both in id order
  for (std::size_t k = 0; k < now.size(); ++k) {
    const ConnectionWatch::Reading& r = now[k];
    while (earlier != before.end() && earlier->id < r.id) ++earlier;
    const StreamTally::Counts from =
        earlier != before.end() && earlier->id == r.id ? earlier->tally : StreamTally::Counts{};
    StreamInterval s;
    s.key = r.id;
    s.bytes = grown(r.tally.bytes, from.bytes);
    ReadSizes sizes;
    sizes.reads = grown(r.tally.sizes.reads, from.sizes.reads);
    for (std::size_t b = 0; b < read_size_bins; ++b)
      sizes.bins[b] = grown(r.tally.sizes.bins[b], from.sizes.bins[b]);
    s.operations = sizes.reads;
    s.read_sizes = sizes;
    if (e.connections != nullptr && k < e.connections->size()) s.tcp = (*e.connections)[k];
    out.push_back(s);
  }
  return out;
}

std::vector<StreamInterval> udp_receiver_streams(const StreamEdges& e) {
  std::vector<StreamInterval> out;
  if (e.udp_delta == nullptr) return out;
  for (const udp::FlowRecord& r : *e.udp_delta) {
    // A test's flows only: not the records of untracked, foreign or unsequenced datagrams.
    if (!udp::is_sender_flow_id(r.flow_id) || r.counters.datagrams == 0) continue;
    StreamInterval s;
    s.key = r.flow_id;
    s.bytes = r.counters.bytes;
    s.datagrams = r.counters.datagrams;
    s.lost = r.counters.lost();
    s.reordered = r.counters.reordered;
    s.jitter_ns = r.counters.jitter_ns;
    out.push_back(s);
  }
  return out;
}

}  // namespace

std::vector<StreamInterval> stream_figures(const StreamEdges& e) {
  if (e.role == Role::sender || e.slots_are_streams) return slot_streams(e);
  return e.udp ? udp_receiver_streams(e) : tcp_receiver_streams(e);
}

}  // namespace xttcp
