#include "engine/udp/datagram_accounting.hh"

#include <algorithm>

#include "engine/udp/datagram_header.hh"
#include "engine/udp/end_marker.hh"

namespace xttcp::udp {

DatagramAccounting::Tracked& DatagramAccounting::tracked(uint32_t flow_id) {
  if (last_ < flows_.size() && flows_[last_].flow_id == flow_id) return flows_[last_];
  for (uint32_t i = 0; i < flows_.size(); ++i) {
    if (flows_[i].flow_id == flow_id) {
      last_ = i;
      return flows_[i];
    }
  }
  // A new flow: registered once (a lock and an allocation), then counted lock-free.
  UdpFlowCounters& counters = registry_->add(slot_, flow_id);
  flows_.push_back({flow_id, std::make_unique<SequenceTracker>(counters)});
  last_ = static_cast<uint32_t>(flows_.size() - 1);
  return flows_.back();
}

void DatagramAccounting::announce() {
  for (; announced_ < ended_; ++announced_)
    if (on_flow_end_ != nullptr && *on_flow_end_) (*on_flow_end_)();
}

// A marker of a flow whose data was native raises its expected count; one whose data had no
// header (compat) only ends it: its datagrams are counted together with every compat sender's.
void DatagramAccounting::on_end_marker(const unsigned char* data, std::size_t available) {
  EndMarker marker;
  if (!decode_end_marker(data, available, marker)) return;  // cut short: not ours to read
  if (marker.compat_data) {
    if (compat_end_after_ > 0) {  // one compat flow here, perhaps ended by its count already
      if (!compat_ended_) {
        compat_ended_ = true;
        flow_ended();
      }
      return;
    }
    if (std::find(ended_compat_.begin(), ended_compat_.end(), marker.flow_id) !=
        ended_compat_.end())
      return;
    ended_compat_.push_back(marker.flow_id);
    flow_ended();
    return;
  }
  Tracked& flow = tracked(marker.flow_id);
  flow.tracker->on_end(marker.sent);
  if (flow.ended) return;
  flow.ended = true;
  flow_ended();
}

bool DatagramAccounting::on_datagram(const unsigned char* data, std::size_t available,
                                     std::size_t length, uint64_t now_ns) {
  DatagramHeader header;
  if (decode(data, available, header)) {
    if (has_end_flag(data)) {
      on_end_marker(data, available);
      return false;
    }
    tracker_for(header.flow_id)
        .on_datagram(header.sequence, header.send_time_ns, now_ns, static_cast<uint32_t>(length));
    return true;
  }
  if (!compat_) compat_ = std::make_unique<SequenceTracker>(registry_->add(slot_, compat_flow));
  compat_->on_compat_datagram(static_cast<uint32_t>(length));
  if (compat_end_after_ > 0 && !compat_ended_ && ++compat_seen_ >= compat_end_after_) {
    compat_ended_ = true;
    flow_ended();
  }
  return true;
}

}  // namespace xttcp::udp
