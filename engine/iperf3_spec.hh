// What only the iperf3 dialect asks for (docs/iperf3.md): how its server runs and reports. The
// options it shares with the other dialects (-p, -B, -i, -V) land in the spec's common parts; a
// test's own settings (streams, time, direction, lengths) come from its client over the wire.
#pragma once

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
};

}  // namespace xttcp
