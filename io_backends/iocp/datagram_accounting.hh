// Receive-side accounting of one iocp UDP socket: native datagrams by flow and sequence
// (engine/udp's SequenceTracker, registered in the run's UdpFlowRegistry the first time a flow
// shows up), others (NTttcp's payload) by count. The same accounting as the Linux backends'
// io_backends/common/udp_accounting, without UDP_GRO (Windows delivers one datagram per receive).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/udp/flow_registry.hh"
#include "engine/udp/sequence_tracker.hh"

namespace xttcp::iocp {

class DatagramAccounting {
 public:
  DatagramAccounting(udp::UdpFlowRegistry& registry, uint32_t slot)
      : registry_(&registry), slot_(slot) {}

  // One datagram of `length` bytes received at `now_ns` (the sender's clock need not agree).
  void on_datagram(const unsigned char* data, std::size_t length, uint64_t now_ns);
  // Native flows seen so far (as the Linux backends count them: compat payload is no flow).
  uint32_t flows() const { return static_cast<uint32_t>(flows_.size()); }

 private:
  struct Tracked {
    uint32_t flow_id = 0;
    std::unique_ptr<udp::SequenceTracker> tracker;
  };
  udp::SequenceTracker& tracker_for(uint32_t flow_id);

  udp::UdpFlowRegistry* registry_;
  uint32_t slot_;
  std::vector<Tracked> flows_;  // few per port: a linear search with a last-hit cache
  uint32_t last_ = 0;
  std::unique_ptr<udp::SequenceTracker> compat_;
};

}  // namespace xttcp::iocp
