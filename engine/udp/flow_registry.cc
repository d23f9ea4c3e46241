#include "engine/udp/flow_registry.hh"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

namespace xttcp::udp {

uint32_t flows_per_socket(uint32_t sockets, uint32_t total) {
  return std::clamp<uint32_t>(total / std::max<uint32_t>(sockets, 1), 64, 1024);
}

UdpFlowCounters& UdpFlowRegistry::add(uint32_t slot, uint32_t flow_id) {
  std::lock_guard lock(mutex_);
  entries_.push_back({slot, flow_id, next_serial_++, std::make_unique<UdpFlowCounters>()});
  where_.emplace(entries_.back().counters.get(), std::prev(entries_.end()));
  return *entries_.back().counters;
}

void UdpFlowRegistry::retire(const UdpFlowCounters& flow, UdpFlowCounters& into) {
  std::lock_guard lock(mutex_);
  add_counts(into, read(flow));
  auto entry = where_.find(&flow);
  if (entry == where_.end()) return;
  entries_.erase(entry->second);
  where_.erase(entry);
}

void UdpFlowRegistry::describe(FlowEnds ends) {
  std::lock_guard lock(mutex_);
  // Bounded as the flows a receiver tracks are: a sprayer of sources names no more than that.
  if (described_.size() < std::size_t{flows_per_socket_} * 4) described_.push_back(std::move(ends));
}

bool UdpFlowRegistry::describes_more() const {
  std::lock_guard lock(mutex_);
  return described_.size() < std::size_t{flows_per_socket_} * 4;
}

std::vector<FlowEnds> UdpFlowRegistry::described() const {
  std::lock_guard lock(mutex_);
  return described_;
}

std::vector<FlowRecord> UdpFlowRegistry::snapshot() const {
  std::lock_guard lock(mutex_);
  std::vector<FlowRecord> out;
  out.reserve(entries_.size());
  for (const Entry& e : entries_) out.push_back({e.slot, e.flow_id, read(*e.counters), e.serial});
  return out;
}

UdpFlowSnapshot sum(const std::vector<FlowRecord>& flows) {
  UdpFlowSnapshot total{};
  for (const FlowRecord& f : flows) {
    if (is_foreign_record(f.flow_id)) continue;
    const UdpFlowSnapshot& c = f.counters;
    total.datagrams += c.datagrams;
    total.bytes += c.bytes;
    total.unique += c.unique;
    total.duplicates += c.duplicates;
    total.reordered += c.reordered;
    total.expected += c.expected;
    total.compat_datagrams += c.compat_datagrams;
    total.jitter_ns = std::max(total.jitter_ns, c.jitter_ns);
  }
  return total;
}

ForeignCounts foreign_counts(const std::vector<FlowRecord>& flows) {
  ForeignCounts foreign;
  for (const FlowRecord& f : flows) {
    if (f.flow_id == foreign_flow) {
      foreign.datagrams += f.counters.datagrams;
      foreign.bytes += f.counters.bytes;
    } else if (f.flow_id == foreign_markers_flow) {
      foreign.end_markers += f.counters.datagrams;
    } else if (f.flow_id == headerless_flow) {
      foreign.headerless_datagrams += f.counters.datagrams;
      foreign.headerless_bytes += f.counters.bytes;
    }
  }
  return foreign;
}

std::vector<FlowRecord> delta(const std::vector<FlowRecord>& later,
                              const std::vector<FlowRecord>& earlier) {
  using Key = std::pair<uint64_t, uint64_t>;  // (slot, flow id), serial
  auto key = [](const FlowRecord& f) {
    return Key{(uint64_t{f.slot} << 32) | f.flow_id, f.serial};
  };
  std::map<Key, const UdpFlowSnapshot*> before;
  for (const FlowRecord& e : earlier) before.emplace(key(e), &e.counters);
  // Flows retired since `earlier`: what they had counted then is in their slot's retired record.
  std::set<Key> now;
  for (const FlowRecord& l : later) now.insert(key(l));
  std::unordered_map<uint32_t, UdpFlowSnapshot> gone;  // by slot
  for (const FlowRecord& e : earlier)
    if (is_flow(e.flow_id) && !now.contains(key(e))) add_counts(gone[e.slot], e.counters);
  std::vector<FlowRecord> out;
  out.reserve(later.size());
  for (const FlowRecord& l : later) {
    auto same = before.find(key(l));
    UdpFlowSnapshot d = same == before.end() ? l.counters : l.counters - *same->second;
    if (auto retired = gone.find(l.slot); l.flow_id == retired_flow && retired != gone.end())
      d = d - retired->second;
    out.push_back({l.slot, l.flow_id, d, l.serial});
  }
  return out;
}

std::vector<FlowRecord> active_since(const std::vector<FlowRecord>& later,
                                     const std::vector<FlowRecord>& earlier) {
  std::vector<FlowRecord> out = delta(later, earlier);
  std::erase_if(out, [](const FlowRecord& f) { return f.counters.datagrams == 0; });
  return out;
}

}  // namespace xttcp::udp
