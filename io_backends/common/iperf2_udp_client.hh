// The iperf2 dialect's UDP client at the kernel-socket senders (epoll, io_uring; docs/iperf2.md):
// iperf 2's client header in every datagram, its 16-byte head stamped per batch, and once the
// test is over each stream's FIN and the server's report (engine/iperf2/udp_datagram.hh).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/result.hh"
#include "engine/spec.hh"

namespace xttcp {

// Writes the client header (as much as fits) at the start of `count` datagrams of `datagram`
// bytes laid back to back from `data`; each head is stamped before it leaves.
void write_iperf2_udp_headers(const TestSpec& spec, unsigned char* data, uint32_t datagram,
                              uint32_t count);

// Stamps the heads of `count` datagrams: sequences first_sent + 1 onwards (iperf 2 numbers
// from 1; `first_sent` = datagrams the flow sent before), one wall-clock time for the batch.
void stamp_iperf2_datagrams(unsigned char* data, uint32_t datagram, uint32_t count,
                            uint64_t first_sent);

// One stream at its end: its socket (connected), the data datagrams it sent, and where its
// figures go (endpoints and the server's report).
struct Iperf2UdpStreamEnd {
  int fd = -1;
  uint64_t sent = 0;
  ConnectionStats* stats = nullptr;
};

// Sends every stream's FIN (sequence -(sent + 1)) and reads the server's report: a try every
// 250 ms, 10 tries at most, as iperf 2's client (so at most 2.5 s). Fills each stream's local and
// remote address and, from the report, its iperf2_udp; a note names the streams that got none.
void end_iperf2_udp_streams(const TestSpec& spec, uint32_t datagram,
                            std::vector<Iperf2UdpStreamEnd>& streams,
                            std::vector<std::string>& notes);

}  // namespace xttcp
