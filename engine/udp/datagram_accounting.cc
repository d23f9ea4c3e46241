#include "engine/udp/datagram_accounting.hh"

#include "engine/udp/datagram_header.hh"

namespace xttcp::udp {

SequenceTracker& DatagramAccounting::tracker_for(uint32_t flow_id) {
  if (last_ < flows_.size() && flows_[last_].flow_id == flow_id) return *flows_[last_].tracker;
  for (uint32_t i = 0; i < flows_.size(); ++i) {
    if (flows_[i].flow_id == flow_id) {
      last_ = i;
      return *flows_[i].tracker;
    }
  }
  // A new flow: registered once (a lock and an allocation), then counted lock-free.
  UdpFlowCounters& counters = registry_->add(slot_, flow_id);
  flows_.push_back({flow_id, std::make_unique<SequenceTracker>(counters)});
  last_ = static_cast<uint32_t>(flows_.size() - 1);
  return *flows_.back().tracker;
}

void DatagramAccounting::on_datagram(const unsigned char* data, std::size_t available,
                                     std::size_t length, uint64_t now_ns) {
  DatagramHeader header;
  if (decode(data, available, header)) {
    tracker_for(header.flow_id)
        .on_datagram(header.sequence, header.send_time_ns, now_ns, static_cast<uint32_t>(length));
    return;
  }
  if (!compat_) compat_ = std::make_unique<SequenceTracker>(registry_->add(slot_, compat_flow));
  compat_->on_compat_datagram(static_cast<uint32_t>(length));
}

}  // namespace xttcp::udp
