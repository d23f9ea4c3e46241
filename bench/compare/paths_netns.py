#!/usr/bin/env python3
"""xttcp compare-paths between two network namespaces joined by a veth pair, so the dpdk backend
(net_af_packet on each veth end) runs beside epoll and io_uring with the same accounting
(docs/compare-paths.md). The workload options after "--" go to compare-paths as they are.

  bench/compare/paths_netns.py --xttcp build/xttcp [--seconds 5] [--rounds 3] [--json FILE]
      [--backends epoll,io_uring,dpdk] [-- -u --rr -b 64]

Receiver in namespace a (10.213.0.1), sender in b (10.213.0.2): tests/e2e_netns/netns.py builds
and removes them. net_af_packet reads and writes frames through AF_PACKET sockets, so the dpdk
row is DPDK's poll-mode code on a kernel device, not a NIC's: the kernel of each namespace sees
the frames too (and answers a request to a port it has no socket on with an ICMP error, which
the dpdk ends ignore). Needs root; exits 77 with the reason when the machine cannot.
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests",
                                "e2e_netns"))
from netns import VethPair  # noqa: E402
from xttcp_e2e import SkipTest  # noqa: E402

EAL = "--no-huge --no-pci -m 256 --log-level=lib.eal:error"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--xttcp", required=True)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--backends", default="epoll,io_uring,dpdk")
    parser.add_argument("--json")
    parser.add_argument("workload", nargs="*", help="compare-paths options (after --)")
    args = parser.parse_args()
    try:
        with VethPair() as net:
            command = [os.path.abspath(args.xttcp), "compare-paths", "--netns",
                       f"{net.namespaces['a']},{net.namespaces['b']}", "--to", net.ipv4("a"),
                       "--from", net.ipv4("b"), "--backends", args.backends,
                       "-t", str(args.seconds), "--repeat", str(args.rounds),
                       "--receiver-dpdk-args", f"{EAL} --vdev net_af_packet0,iface={net.links['a']}",
                       "--sender-dpdk-args", f"{EAL} --vdev net_af_packet0,iface={net.links['b']}",
                       *(["--json", args.json] if args.json else []), *args.workload]
            print("$ " + " ".join(command[1:]), flush=True)
            bound = (args.seconds + 70) * args.rounds * len(args.backends.split(","))
            return subprocess.run(command, timeout=bound).returncode
    except SkipTest as skip:
        print(f"skipped: {skip}")
        return 77


if __name__ == "__main__":
    sys.exit(main())
