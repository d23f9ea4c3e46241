// Who a receiver serves: --allow and --max-clients (docs/hostile-peers.md). Default open, as
// NTttcp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace xttcp {

struct AccessSpec {
  std::vector<std::string> allow;  // --allow: CIDR blocks as given; empty = everyone
  uint32_t max_clients = 0;        // --max-clients: distinct sender hosts per test; 0 = no limit

  bool restricted() const { return !allow.empty() || max_clients > 0; }
};

}  // namespace xttcp
