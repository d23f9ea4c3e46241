#include "engine/udp/flow_registry.hh"

#include <algorithm>
#include <unordered_map>

namespace xttcp::udp {

UdpFlowCounters& UdpFlowRegistry::add(uint32_t slot, uint32_t flow_id) {
  std::lock_guard lock(mutex_);
  entries_.push_back({slot, flow_id, std::make_unique<UdpFlowCounters>()});
  return *entries_.back().counters;
}

std::vector<FlowRecord> UdpFlowRegistry::snapshot() const {
  std::lock_guard lock(mutex_);
  std::vector<FlowRecord> out;
  out.reserve(entries_.size());
  for (const Entry& e : entries_) out.push_back({e.slot, e.flow_id, read(*e.counters)});
  return out;
}

UdpFlowSnapshot sum(const std::vector<FlowRecord>& flows) {
  UdpFlowSnapshot total{};
  for (const FlowRecord& f : flows) {
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

std::vector<FlowRecord> delta(const std::vector<FlowRecord>& later,
                              const std::vector<FlowRecord>& earlier) {
  std::unordered_map<uint64_t, const UdpFlowSnapshot*> before;
  before.reserve(earlier.size());
  auto key = [](const FlowRecord& f) { return (uint64_t{f.slot} << 32) | f.flow_id; };
  for (const FlowRecord& e : earlier) before.emplace(key(e), &e.counters);
  std::vector<FlowRecord> out;
  out.reserve(later.size());
  for (const FlowRecord& l : later) {
    auto same = before.find(key(l));
    out.push_back({l.slot, l.flow_id, same == before.end() ? l.counters : l.counters - *same->second});
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
