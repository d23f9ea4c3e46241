#!/usr/bin/env python3
"""xttcp across a veth pair between two network namespaces (netns.py): receiver in namespace a,
sender in namespace b, with sync. UDP cases check docs/udp.md against real loss (netem), real
reordering, -B pacing and IPv6 on a link; the TCP cases check the infrastructure itself.

  udp_netem_test.py XTTCP [CASE ...]     cases: see CASES below; none = all

Exit 0 (all run cases passed), 1 (a case failed: named on stdout), 77 (everything skipped, with
the reason). Needs root; netem cases skip when the kernel has no sch_netem.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from xttcp_e2e import (check, load_json, parse_totals, run_cases, scratch_dir)  # noqa: E402
from netns import Interrupted, Netem, VethPair  # noqa: E402

BASE_PORT = 5001  # the namespaces are new: nothing else listens in them
PORTS = 2
DATAGRAM = 1470
PROCESS_TIMEOUT = 40


class Run:
    """One receiver (side a) and one sender (side b) run; native JSON of both."""

    def __init__(self, net, xttcp, started, common, receiver_extra=(), sender_extra=(),
                 ipv6=False):
        out = scratch_dir("xttcp-netns-")
        self.r_json, self.s_json = os.path.join(out, "r.json"), os.path.join(out, "s.json")
        address = net.ipv6("a") if ipv6 else net.ipv4("a")
        family = ["-6"] if ipv6 else []
        common = [*family, "-P", str(PORTS), "-p", str(BASE_PORT), "-Q", *common]
        self.receiver = net.start("a", [xttcp, "-r", address, *common, *receiver_extra,
                                        "--json", self.r_json, "--wait-timeout", "30"],
                                  "receiver (ns a)")
        started.append(self.receiver)
        net.wait_listening(self.receiver, BASE_PORT - 1, ipv6=ipv6)
        self.sender = net.start("b", [xttcp, "-s", address, "-n", "1", *common, *sender_extra,
                                      "--json", self.s_json], "sender (ns b)")
        started.append(self.sender)
        check(self.sender.wait(PROCESS_TIMEOUT) == 0, "sender failed")
        check(self.receiver.wait(PROCESS_TIMEOUT) == 0, "receiver failed")
        self.r = load_json(self.r_json)
        self.s = load_json(self.s_json)

    def udp(self):
        check("udp" in self.r, "receiver's native JSON has no 'udp' object")
        return self.r["udp"]


def udp_run(run):
    u = run.udp()
    check(u.get("datagram_size") == DATAGRAM, f"udp.datagram_size {u.get('datagram_size')} "
          f"!= {DATAGRAM}")
    check(u.get("payload") == "native", f"udp.payload {u.get('payload')!r}: an xttcp sender "
          "to an xttcp receiver must send native datagrams")
    return u["run"]


def case_udp_loss(xttcp, started):
    """netem loss 2 % on the sender's egress: the receiver's exact loss is 2 % +- 0.5 points."""
    # GSO off: netem drops whole skbs, and a GSO skb carries many datagrams; loss would come
    # in bursts and its spread would exceed the tolerance.
    with VethPair(netem=Netem(loss=2), netem_side="b") as net:
        run = Run(net, xttcp, started, ["-u", "-t", "3"],
                  sender_extra=["-b", str(DATAGRAM), "-B", "200M", "--udp-gso", "off"])
        r = udp_run(run)
    check(r["sent"] > 10000, f"only {r['sent']} datagrams sent: too few to measure 2 % loss")
    check(r.get("loss_source") == "sender count",
          f"udp.run.loss_source {r.get('loss_source')!r}, expected 'sender count' with sync")
    check(r["lost"] == r["sent"] - r["received"],
          f"lost {r['lost']} != sent {r['sent']} - received {r['received']}")
    check(abs(r["loss_percent"] - 2.0) <= 0.5,
          f"loss {r['loss_percent']:.3f} % with netem loss 2 % (tolerance 0.5 points)")


def case_udp_reorder(xttcp, started):
    """netem delay 1ms reorder 25% 50%: reordering is seen, nothing is lost."""
    with VethPair(netem=Netem(delay_ms=1, reorder=25, reorder_correlation=50),
                  netem_side="b") as net:
        run = Run(net, xttcp, started, ["-u", "-t", "3"],
                  sender_extra=["-b", str(DATAGRAM), "-B", "100M"])
        r = udp_run(run)
    check(r["received"] > 0, "receiver counted no datagram")
    check(r["reordered"] > 0, f"udp.run.reordered is {r['reordered']} with netem reorder 25 %")
    check(r["loss_percent"] <= 0.5, f"loss {r['loss_percent']:.3f} % with no netem loss")


def case_udp_pacing(xttcp, started):
    """-B 100M, no netem: the receiver's window rate (UDP payload, all flows) is at most 2 % above
    the rate (the pacer holds its cap) and at most 10 % below it: a sender starved of CPU on a
    loaded machine falls behind a pacer it cannot outrun (97.98 Mbit/s was seen at load 15)."""
    target = 100e6
    with VethPair() as net:
        run = Run(net, xttcp, started, ["-u", "-t", "4"],
                  sender_extra=["-b", str(DATAGRAM), "-B", "100M"])
        udp_run(run)
    summary = run.r["summary"]
    rate = summary["total_bytes"] * 8 / summary["duration_s"]
    check(0.90 * target <= rate <= 1.02 * target,
          f"receiver window rate {rate / 1e6:.2f} Mbit/s ({summary['total_bytes']} B in "
          f"{summary['duration_s']:.3f} s), -B 100M (want 90 to 102 Mbit/s)")


def case_udp_ipv6(xttcp, started):
    """-6 across the veth (ULA addresses): datagrams arrive, loss is small."""
    with VethPair() as net:
        run = Run(net, xttcp, started, ["-u", "-t", "2"], ipv6=True,
                  sender_extra=["-b", str(DATAGRAM), "-B", "100M"])
        r = udp_run(run)
    check(r["received"] > 0, "receiver counted no datagram over IPv6")
    check(r["loss_percent"] <= 1.0, f"loss {r['loss_percent']:.3f} % over an idle veth")


def tcp_case(xttcp, started, ipv6, seconds):
    with VethPair() as net:
        before = net.link_stats("a")["stats64"]["rx"]["bytes"]
        run = Run(net, xttcp, started, ["-t", str(seconds)], ipv6=ipv6)
        crossed = net.link_stats("a")["stats64"]["rx"]["bytes"] - before
        # The sender counts what its kernel accepted, the receiver what it read: at the window
        # edges they differ by what the socket buffers hold (the namespaces' own maxima).
        in_flight = PORTS * (net.sysctl_max("b", "net.ipv4.tcp_wmem")
                             + net.sysctl_max("a", "net.ipv4.tcp_rmem"))
    r, s = parse_totals(run.receiver.stdout()), parse_totals(run.sender.stdout())
    check(r["bytes"] > 0, "receiver counted nothing")
    check(abs(r["bytes"] - s["bytes"]) <= 0.02 * max(r["bytes"], s["bytes"]) + in_flight,
          f"receiver {r['bytes']} and sender {s['bytes']} bytes differ by more than 2 % + "
          f"{in_flight} B in socket buffers")
    check(run.r["summary"]["total_bytes"] == r["bytes"], "native JSON and console totals differ")
    check(run.r.get("peer", {}).get("role") == "sender", "receiver's JSON lacks the sender")
    check(crossed >= r["bytes"], f"the veth in ns a received {crossed} B, less than the "
          f"{r['bytes']} B counted: the data did not cross the veth pair")


def case_tcp(xttcp, started):
    """TCP over IPv4 across the pair: validates the namespaces, veth and process handling."""
    tcp_case(xttcp, started, ipv6=False, seconds=2)


def case_tcp_ipv6(xttcp, started):
    """TCP over IPv6 (nodad ULA addresses) across the pair."""
    tcp_case(xttcp, started, ipv6=True, seconds=1)


CASES = {
    "udp-loss": case_udp_loss,
    "udp-reorder": case_udp_reorder,
    "udp-pacing": case_udp_pacing,
    "udp-ipv6": case_udp_ipv6,
    "tcp": case_tcp,
    "tcp-ipv6": case_tcp_ipv6,
}


if __name__ == "__main__":
    sys.exit(run_cases(CASES, interrupted=(Interrupted,)))
