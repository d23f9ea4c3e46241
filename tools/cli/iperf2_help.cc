// The iperf2 dialect's --help: iperf 2.1.8's options as xttcp runs them (docs/iperf2.md).
#include <string>

#include <fmt/format.h>

#include "tools/cli/command.hh"
#include "tools/cli/subcommands.hh"

namespace xttcp {

namespace {

// xttcp's commands are the same in every dialect: named from their one table.
std::string commands_line() {
  std::string names;
  for (const SubcommandDoc& doc : subcommands())
    names.append(names.empty() ? "" : ", ").append(doc.name);
  return fmt::format("xttcp's commands, the first word in any dialect: {} (xttcp COMMAND --help)\n",
                     names);
}

}  // namespace

std::string iperf2_dialect_help() {
  return R"(Usage: iperf [-s|-c host] [options]      (xttcp in the iperf2 dialect)
       iperf [-h|--help] [-v|--version]

Client/Server:
  -b, --bandwidth #[kmgKMG]  rate of each stream in bits/sec (default: as fast as it goes;
                             UDP 1 Mbit/sec)
  -e, --enhanced             enhanced reports (more columns)
  -f, --format [aAbBkKmMgG]  report units: a adaptive bits (default), A adaptive bytes,
                             k/m/g bits, K/M/G bytes
      --hide-ips             print addresses as x.x.x.x
  -i, --interval #           seconds between interval reports (default none)
  -l, --len #[kmKM]          buffer length (default 128K; UDP 1470, 1450 over IPv6)
  -p, --port #               port to listen on or connect to (default 5001)
      --sum-only             print the [SUM] reports only
  -u, --udp                  UDP, with iperf 2's datagram header (loss, jitter, server report)
  -w, --window #[KM]         socket buffer size (SO_SNDBUF and SO_RCVBUF)
  -B, --bind <host>          address to bind (server) or to send from (client)
  -C, --compatibility        send no iperf 2 header (for servers before 2.0)
  -N, --nodelay              TCP_NODELAY
  -V, --ipv6_domain          IPv6
  -Z, --tcp-congestion <algo>  TCP congestion control (TCP_CONGESTION), e.g. cubic, bbr
Server:
  -s, --server               serve tests one after another until Ctrl+C
  -1, --singleclient         one test at a time (xttcp's server always does)
  -D, --daemon               run in the background
Client:
  -c, --client <host>        send to the iperf 2 (or xttcp) server at <host>
  -P, --parallel #           parallel streams (default 1), a thread each for TCP
  -t, --time #               seconds to send (default 10)
      --fq-rate #[kmgKMG]    socket pacing rate of each stream (SO_MAX_PACING_RATE)
Reports:
  -x, --reportexclude [CDMSV]  leave out C connection, D data, M multicast, S settings,
                             V server reports
  -y, --reportstyle C        comma-separated values
xttcp's own:
  --backend NAME, --json FILE, --placement MODE, --nic IF, --threads N, --pin, --dialect D

Refused with the reason: -d -r -R --full-duplex -L (one direction per run), -n, -F, -I, -M,
-m, -S, -T, -H, -o, -z, -U, -X, --bounceback*, --isochronous, --trip-times, and the other
iperf 2.1.8 options docs/iperf2.md lists.
)" + commands_line();
}

}  // namespace xttcp
