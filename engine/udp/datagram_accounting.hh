// Receive-side accounting of one receiving socket (or port): native datagrams by flow and
// sequence (SequenceTracker, registered in the run's UdpFlowRegistry the first time a flow shows
// up), others (NTTTCP's payload) by count. Portable: every backend's UDP receiver feeds it, one
// datagram at a time (io_backends/common/udp_accounting splits UDP_GRO trains first).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/udp/flow_registry.hh"
#include "engine/udp/sequence_tracker.hh"

namespace xttcp::udp {

class DatagramAccounting {
 public:
  DatagramAccounting(UdpFlowRegistry& registry, uint32_t slot)
      : registry_(&registry), slot_(slot) {}

  // One datagram of `length` bytes received at `now_ns` (the sender's clock need not agree), of
  // which `available` bytes are in `data` (fewer when read with MSG_TRUNC).
  void on_datagram(const unsigned char* data, std::size_t available, std::size_t length,
                   uint64_t now_ns);
  // Native flows seen so far (compat payload is no flow).
  uint32_t flows() const { return static_cast<uint32_t>(flows_.size()); }

 private:
  struct Tracked {
    uint32_t flow_id = 0;
    std::unique_ptr<SequenceTracker> tracker;
  };
  SequenceTracker& tracker_for(uint32_t flow_id);

  UdpFlowRegistry* registry_;
  uint32_t slot_;
  std::vector<Tracked> flows_;  // few per port: a linear search with a last-hit cache
  uint32_t last_ = 0;
  std::unique_ptr<SequenceTracker> compat_;
};

}  // namespace xttcp::udp
