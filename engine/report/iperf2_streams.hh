// What iperf 2's reports show of a Result, shared by the console and the CSV renderers: the
// streams (one per TCP connection, numbered from 1 as iperf 2 numbers them) and the interval
// samples on the -i grid.
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

struct Iperf2Interval {
  double from = 0, to = 0;
  uint64_t bytes = 0;
  uint64_t operations = 0;           // send/receive calls (-e Write)
  uint64_t datagrams = 0, lost = 0;  // UDP: sent (client) or received (server), and lost
  double jitter_ms = 0;              // UDP server
};

std::vector<Iperf2Stream> iperf2_streams(const Result& result);
// "127.0.0.1:5001" / "[::1]:5001" as host and port; `hide`: the host as x.x.x.x (--hide-ips).
Iperf2Endpoint iperf2_endpoint(const std::string& text, bool hide);
// The window's interval samples at k x interval_s, the last ending with the window.
std::vector<Iperf2Interval> iperf2_intervals(const Result& result);

}  // namespace xttcp
