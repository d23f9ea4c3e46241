// -V's console lines for the NIC's queues over the window (Result::queue_window, with each CPU's
// busy shares), the source ports chosen for the receiver's RSS (Result::source_ports) and a
// backend's own device as it described itself (Result::device); docs/topology.md.
#pragma once

#include <string>
#include <vector>

#include "engine/result.hh"

namespace xttcp {

std::vector<std::string> queue_window_lines(const QueueWindow& window);
std::vector<std::string> source_port_lines(const SourcePortSpread& spread);
// -V: what a backend's own device said of itself at setup (dpdk: the port's NUMA node, queues,
// RSS key and indirection table, or why not).
std::vector<std::string> device_description_lines(const DeviceResult& device);
// -V: the sender's prediction against its receiver's per-queue counts (spread_check).
std::vector<std::string> spread_check_lines(const SpreadCheck& check);

}  // namespace xttcp
