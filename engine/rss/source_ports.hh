// Source ports chosen so that the receiver's NIC spreads the flows evenly over its RX queues
// (or onto the queues its workers asked for): the Toeplitz hash of (sender address, receiver
// address, source port, destination port) under the receiver's key, looked up in its
// indirection table. Pure but for `port_free`, which the caller answers by trying a bind.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "topology/nic/rss_description.hh"

namespace xttcp {

struct SourcePortRequest {
  bool ipv6 = false;
  std::array<std::uint8_t, 16> sender{};         // the source address as the receiver sees it
  std::array<std::uint8_t, 16> receiver{};       // the destination address
  std::vector<std::uint16_t> destination_ports;  // one per flow
  std::uint16_t first_port = 32768, last_port = 60999;  // candidates (the ephemeral range)
  std::uint32_t start = 0;  // where the scan of candidates begins (offset into the range)
};

struct SourcePortChoice {
  std::vector<std::uint16_t> ports;            // per flow
  std::vector<std::uint32_t> queues;           // per flow: the RX queue its port hashes to
  std::vector<std::uint32_t> flows_per_queue;  // rss.queues entries
  std::uint32_t off_target = 0;    // flows for which no free port reached the queue wanted
  std::uint32_t ports_in_use = 0;  // candidates on the wanted queue that port_free refused
};

// Each flow in turn wants the queue its destination port asks for (rss.port_queues), else the
// reachable queue (one the table names) holding the fewest flows so far; it takes the next
// candidate port, in scan order, that hashes there, is not taken by an earlier flow and that
// `port_free` accepts. Bounded: every flow scans the range at most once. Error when the range
// holds fewer free ports than flows.
Expected<SourcePortChoice> choose_source_ports(const RssDescription& rss,
                                               const SourcePortRequest& request,
                                               const std::function<bool(std::uint16_t)>& port_free);

}  // namespace xttcp
