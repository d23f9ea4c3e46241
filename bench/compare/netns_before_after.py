#!/usr/bin/env python3
"""A real before/after pair for `xttcp compare` and `xttcp report`: across a veth pair in two
network namespaces, `--repeat N` runs against one -H receiver, then the same after a change on
the sender's interface that a driver update could make: TSO turned off (`--change tso-off`,
the default) or the MTU lowered from 9000 to 1500 (`--change mtu`). Writes base.json, new.json,
the compare table (compare.txt) and the report page (report.html) into --out.

  bench/compare/netns_before_after.py --xttcp build/xttcp --out DIR [--repeat 5] [--seconds 3]
      [--streams 4] [--change tso-off|mtu]

Needs root (ip netns). Traffic stays in the namespaces made here, which are deleted on exit.
"""
import argparse
import os
import signal
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "e2e_netns"))
from netns import VethPair  # noqa: E402

PORT = 5001  # the namespaces are new: nothing else listens in them


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--xttcp", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seconds", type=int, default=3)
    parser.add_argument("--streams", type=int, default=4)
    parser.add_argument("--change", choices=("tso-off", "mtu"), default="tso-off")
    args = parser.parse_args()
    xttcp = os.path.abspath(args.xttcp)
    os.makedirs(args.out, exist_ok=True)
    paths = {side: os.path.join(args.out, f"{side}.json") for side in ("base", "new")}
    with VethPair() as net:
        if args.change == "mtu":
            for side in "ab":
                subprocess.run(["ip", "-n", net.namespaces[side], "link", "set", "dev",
                                net.links[side], "mtu", "9000"], check=True, timeout=20)
        receiver = net.start("a", [xttcp, "-r", net.ipv4("a"), "-P", "1", "-p", str(PORT),
                                   "-t", str(args.seconds), "-H", "-Q"], "receiver")
        net.wait_listening(receiver, PORT - 1)
        for side in ("base", "new"):
            if side == "new":
                if args.change == "mtu":
                    subprocess.run(["ip", "-n", net.namespaces["b"], "link", "set", "dev",
                                    net.links["b"], "mtu", "1500"], check=True, timeout=20)
                else:
                    net.set_feature("b", "tso", False)
            sender = net.start("b", [xttcp, "-s", net.ipv4("a"), "-P", "1", "-n",
                                     str(args.streams), "-p", str(PORT), "-t", str(args.seconds),
                                     "-Q", "--repeat", str(args.repeat), "--json", paths[side]],
                               f"{side} sender")
            if sender.wait(args.repeat * (args.seconds + 10) + 30) != 0:
                raise SystemExit(f"the {side} sender failed: {sender.stderr()}")
        receiver.signal(signal.SIGINT)
        receiver.wait(15)
    done = subprocess.run([xttcp, "compare", paths["base"], paths["new"]], capture_output=True,
                          text=True, timeout=60)
    with open(os.path.join(args.out, "compare.txt"), "w") as f:
        f.write(done.stdout + done.stderr)
    print(done.stdout + done.stderr, end="")
    print(f"compare exit {done.returncode}")
    page = subprocess.run([xttcp, "report", paths["base"], paths["new"], "-o",
                           os.path.join(args.out, "report.html"), "--title",
                           f"veth before/after: {args.change}"],
                          capture_output=True, text=True, timeout=300)
    print(page.stdout + page.stderr, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
