#!/usr/bin/env python3
"""A regression made real and caught: across a veth pair (netns.py) limited by a token bucket
(tc tbf, on the sender's egress, like a NIC's line rate), three sets of `--repeat 3` against one
-H receiver: two at the same rate, one at half of it. `xttcp compare` says exit 0 for the two
alike and exit 3, naming throughput, for the halved one. The same again with three sweeps
(`xttcp sweep`): a verdict per cell.

  regression_test.py XTTCP

Exit 0, 1, or 77 (not root, no netns/veth, or no sch_tbf)."""
import os
import signal
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from xttcp_e2e import check, load_json, run_cases, scratch_dir  # noqa: E402
from netns import Interrupted, VethPair  # noqa: E402

BASE_PORT = 5001  # the namespaces are new: nothing else listens in them


class Tbf:
    """tc tbf settings for VethPair.apply_netem (which replaces the root qdisc)."""

    def __init__(self, rate):
        self.rate = rate

    def args(self):
        return ["tbf", "rate", self.rate, "burst", "128kb", "latency", "50ms"]

    def __str__(self):
        return " ".join(self.args())


def repeated(net, xttcp, started, path):
    sender = net.start("b", [xttcp, "-s", net.ipv4("a"), "-P", "1", "-n", "1", "-p",
                             str(BASE_PORT), "-t", "2", "-Q", "--repeat", "3", "--json", path],
                       "sender (ns b)")
    started.append(sender)
    check(sender.wait(60) == 0, f"the repeated sender failed writing {path}")


def compare(xttcp, base, new):
    done = subprocess.run([xttcp, "compare", base, new], capture_output=True, text=True,
                          timeout=30)
    return done.returncode, done.stdout + done.stderr


def case_rate_halved(xttcp, started):
    out = scratch_dir("xttcp-netns-")
    files = {name: os.path.join(out, name + ".json") for name in ("base", "again", "halved")}
    with VethPair(netem=Tbf("400mbit"), netem_side="b") as net:
        receiver = net.start("a", [xttcp, "-r", net.ipv4("a"), "-P", "1", "-p", str(BASE_PORT),
                                   "-t", "2", "-H", "-Q"], "receiver (ns a)")
        started.append(receiver)
        net.wait_listening(receiver, BASE_PORT - 1)
        repeated(net, xttcp, started, files["base"])
        repeated(net, xttcp, started, files["again"])
        net.apply_netem(Tbf("200mbit"), "b")
        repeated(net, xttcp, started, files["halved"])
        receiver.signal(signal.SIGINT)
        check(receiver.wait(10) == 0, "receiver did not end cleanly on SIGINT")
        links = dict(net.links)
    # The environment names the interface used and its driver (ethtool's driver info).
    nic = load_json(files["base"])["runs"][0]["host"].get("nic", {})
    check(nic.get("interface") == links["b"] and nic.get("driver") == "veth" and nic.get("mtu"),
          f"the sender's interface is {links['b']} (veth), the result says {nic}")
    check("tso " in nic.get("offloads", "") and "gro " in nic.get("offloads", ""),
          f"the sender's environment lacks its interface's offloads: {nic}")
    code, table = compare(xttcp, files["base"], files["again"])
    print(table)
    check(code == 0, f"the same rate twice was called a regression (exit {code})")
    code, table = compare(xttcp, files["base"], files["halved"])
    print(table)
    check(code == 3, f"half the rate was not called a regression (exit {code})")
    check("REGRESSION (throughput" in table, "the verdict does not name throughput")


def swept(net, xttcp, started, path):
    sender = net.start("b", [xttcp, "sweep", "-s", net.ipv4("a"), "-P", "4", "-p",
                             str(BASE_PORT), "-t", "1", "--repeat", "3", "--connections", "1,4",
                             "--sizes", "64K,1M", "--json", path], "sweep (ns b)")
    started.append(sender)
    check(sender.wait(120) == 0, f"the sweep failed writing {path}")


def case_sweep_rate_halved(xttcp, started):
    """The same with `xttcp sweep` (2 x 2 cells, --repeat 3) against one -H receiver: the same
    rate twice is no regression in any cell; half the rate is one in every cell."""
    out = scratch_dir("xttcp-netns-")
    files = {name: os.path.join(out, name + ".json") for name in ("base", "again", "halved")}
    with VethPair(netem=Tbf("400mbit"), netem_side="b") as net:
        receiver = net.start("a", [xttcp, "-r", net.ipv4("a"), "-P", "4", "-p", str(BASE_PORT),
                                   "-H", "-Q"], "receiver (ns a)")
        started.append(receiver)
        net.wait_listening(receiver, BASE_PORT - 1)
        swept(net, xttcp, started, files["base"])
        swept(net, xttcp, started, files["again"])
        net.apply_netem(Tbf("200mbit"), "b")
        swept(net, xttcp, started, files["halved"])
        receiver.signal(signal.SIGINT)
        check(receiver.wait(10) == 0, "receiver did not end cleanly on SIGINT")
    code, table = compare(xttcp, files["base"], files["again"])
    print(table)
    check(code == 0, f"the same rate twice was called a regression (exit {code})")
    check("no regression in 4 cells" in table, "the table lacks its verdict over 4 cells")
    code, table = compare(xttcp, files["base"], files["halved"])
    print(table)
    check(code == 3, f"half the rate was not called a regression (exit {code})")
    check(table.count("REGRESSION (throughput") == 4 and "REGRESSION in 4 of 4 cells" in table,
          "not every cell was marked a throughput regression")


if __name__ == "__main__":
    sys.exit(run_cases({"rate-halved": case_rate_halved,
                        "sweep-rate-halved": case_sweep_rate_halved},
                       interrupted=(Interrupted,)))
