// What only the iperf2 dialect asks for (docs/iperf2.md): how its reports look. The options it
// shares with the other dialects (-P, -t, -l, -w, -b, ...) land in the spec's common parts.
#pragma once

#include <string>

namespace xttcp {

struct Iperf2Options {
  // -f: 'a' adaptive bits (the default), 'A' adaptive bytes, or one of b B k K m M g G.
  char format = 'a';
  bool csv = false;            // -y C / --reportstyle C: comma-separated lines only
  bool enhanced = false;       // -e: the enhanced columns
  bool intervals = false;      // -i given: one line per interval (output.interval_s long)
  bool sum_only = false;       // --sum-only: the [SUM] lines alone
  bool hide_ips = false;       // --hide-ips: addresses printed as x.x.x.x
  bool compatibility = false;  // -C: no client header (for pre-2.0 servers)
  bool len_given = false;      // -l given: a UDP client's header says its datagram size
  // -x: reports left out: C connection, D data, M multicast, S settings, V server.
  std::string exclude;
  bool excludes(char report) const { return exclude.find(report) != std::string::npos; }
};

}  // namespace xttcp
