// What iperf 2's reports show of a Result, shared by the console and the CSV renderers: the
// streams (one per TCP connection or UDP flow, numbered from 1 in the order they began, as iperf 2
// numbers them) and the interval samples on the -i grid, with each stream's share.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/result.hh"

namespace xttcp {

struct Iperf2Endpoint {
  std::string host;
  std::string port;
};

struct Iperf2Stream {
  uint32_t id = 0;
  Iperf2Endpoint local, remote;
  uint64_t bytes = 0;
  std::optional<uint64_t> calls;       // send calls (-e Write), when the data path counts them
  ConnectionStats tcp;                 // TCP_INFO at the end (-e Rtry, Cwnd, RTT)
  std::optional<Iperf2UdpStream> udp;  // UDP: the server's report (its own, at a server)
};

// One stream's share of an interval, under its number.
struct Iperf2StreamShare {
  uint32_t id = 0;
  StreamInterval figures;
};

struct Iperf2Interval {
  double from = 0, to = 0;
  uint64_t bytes = 0;
  uint64_t operations = 0;                 // send/receive calls (-e Write)
  uint64_t datagrams = 0, lost = 0;        // UDP: sent (client) or received (server), and lost
  double jitter_ms = 0;                    // UDP server
  std::vector<Iperf2StreamShare> streams;  // in id order; empty when not counted per stream
};

// Stream numbers as iperf 2 gives them: from 1, in the order the streams are first seen (by
// StreamInterval::key / ConnectionStats::stream).
class Iperf2StreamNumbers {
 public:
  // The number of `key`, a new one if it was not seen before.
  uint32_t number(uint64_t key);
  std::optional<uint32_t> find(uint64_t key) const;
  uint32_t count() const { return static_cast<uint32_t>(keys_.size()); }

 private:
  std::vector<uint64_t> keys_;  // in order of their numbers
};

// The streams numbered as the intervals first show them; those they do not show follow, a
// sender's and a TCP receiver's in the order they began, a UDP receiver's as they ended.
std::vector<Iperf2Stream> iperf2_streams(const Result& result);
// The stream numbered `id` in `streams`; null when none is.
const Iperf2Stream* iperf2_stream_by_id(const std::vector<Iperf2Stream>& streams, uint32_t id);
// "127.0.0.1:5001" / "[::1]:5001" as host and port; `hide`: the host as x.x.x.x (--hide-ips).
Iperf2Endpoint iperf2_endpoint(const std::string& text, bool hide);
// The window's interval samples at k x interval_s, the last ending with the window, with each
// stream's share numbered as iperf2_streams() numbers the streams.
std::vector<Iperf2Interval> iperf2_intervals(const Result& result);
// One interval sample on the -i grid, from `from` to `to`, its streams numbered by `numbers`.
Iperf2Interval iperf2_interval(const IntervalSample& sample, double from, double to,
                               Iperf2StreamNumbers& numbers);

}  // namespace xttcp
