// What only the iperf3 dialect asks for (docs/iperf3.md): how its ends run and report. The
// options it shares with the other dialects (-p, -B, -i, -V, -P, -t, ...) land in the spec's
// common parts; a server takes a test's own settings from its client over the wire.
#pragma once

#include <cstdint>
#include <string>

namespace xttcp {

struct Iperf3Options {
  bool json = false;     // -J: one JSON document per test on stdout, iperf3's keys
  bool one_off = false;  // -1: serve one test, then exit
  // -f: 'a' adaptive bits (the default), or one of k m g t (bits) / K M G T (bytes) per second.
  char format = 'a';
  // --forceflush: every line flushed as printed; taken for iperf3's command lines, and what
  // xttcp's log does for every line anyway.
  bool forceflush = false;
  bool intervals = true;  // -i 0: no interval rows

  // The client's own (iperf3 -c HOST; the spec's common parts hold -P, -t, -O, -l, -w, -N, -C,
  // -Z, -B and --cport).
  bool reverse = false;             // -R: the server sends
  bool bidir = false;               // --bidir: P streams each way at once
  uint32_t mss = 0;                 // -M: the streams' TCP_MAXSEG; 0: the system's
  uint64_t bytes = 0;               // -n: the test ends once this many bytes moved; 0: by -t
  uint64_t blocks = 0;              // -k: ... once this many blocks (sends or reads)
  uint64_t stream_rate_bps = 0;     // -b: per stream, as iperf3 counts it; 0: unlimited
  uint64_t stream_fq_rate_bps = 0;  // --fq-rate: per stream
  std::string title;                // -T: the client's lines start with "TITLE:  "
  bool udp_counters_64bit = false;  // --udp-counters-64bit: 64-bit sequence numbers (-u)
  bool get_server_output = false;   // --get-server-output: the server's lines after the summary
  // -u without -l: the datagram is the control connection's MSS (at most 65507), else 1460,
  // as 3.12 picks it once connected.
  bool udp_length_from_mss = false;
};

}  // namespace xttcp
