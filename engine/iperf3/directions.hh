// The directions of an iperf3 test (tests/reference/iperf3-3.12/README.md 2, 3.4): one, the
// client's (-R: the server's), or with --bidir two of P streams each, numbered by both ends in
// the order the client opens them: its P send streams first, then its P receive streams. So the
// client's first group sends, the server's first group receives. Pure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/iperf3/parameters.hh"

namespace xttcp::iperf3 {

// One direction's streams: [first, first + count) of the test's streams, in stream order.
struct StreamGroup {
  bool sending = true;  // this end sends on them
  std::size_t first = 0;
  std::size_t count = 0;
  // --bidir: the role column 3.12 prints ("[TX-C]", "[RX-C]", "[TX-S]", "[RX-S]"); else "".
  std::string role;
  // -J: the name of its interval sums and, with "_sent"/"_received" after "sum", its end sums:
  // "sum", or "sum_bidir_reverse" for the server's sending (the reverse channel) either end.
  std::string sum_name;
};

// This end's groups of the test `p` asks for, in stream order.
std::vector<StreamGroup> stream_groups(bool client, const Parameters& p);
// One direction of `streams` streams: the groups of a test without --bidir.
std::vector<StreamGroup> one_direction(bool sending, std::size_t streams);

// The id both ends give the test's stream at `index` (0-based): 1, 3, 4, 5, ... (3.12 skips 2).
inline int32_t stream_id(std::size_t index) {
  return index == 0 ? 1 : static_cast<int32_t>(index) + 2;
}

}  // namespace xttcp::iperf3
