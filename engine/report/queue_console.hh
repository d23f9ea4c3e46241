// -V's console lines for the NIC's queues over the window (Result::queue_window, with each CPU's
// busy shares) and the source ports chosen for the receiver's RSS (Result::source_ports);
// docs/topology.md.
#pragma once

#include <string>
#include <vector>

#include "engine/result.hh"

namespace xttcp {

std::vector<std::string> queue_window_lines(const QueueWindow& window);
std::vector<std::string> source_port_lines(const SourcePortSpread& spread);
// -V: the sender's prediction against its receiver's per-queue counts (spread_check).
std::vector<std::string> spread_check_lines(const SpreadCheck& check);

}  // namespace xttcp
