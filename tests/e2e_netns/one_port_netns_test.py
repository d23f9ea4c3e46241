#!/usr/bin/env python3
"""--one-port across a veth pair (netns.py), behind the firewall rule docs/usage.md gives for it:
namespace a, the receiver's, drops every TCP segment and UDP datagram that comes in except
those to PORT. A one-port test runs through it (4 connections, both ends' counts agree, the
bytes crossed the veth), and so do a UDP one-port test (4 flows to UDP PORT), a --reverse test (the bytes cross from a to b) and a --bidir test (both ways
at once, each direction's counts agreeing); a test without --one-port, to the same receiver
port, is stopped by it (its sync goes to PORT - 1), which shows the rule is what the one-port
test went through.
Exits 77 when the machine cannot make the namespaces or has no nft."""
import shutil
import subprocess
import sys

from netns import VethPair  # puts tests/e2e on the path
from xttcp_e2e import SkipTest, check, counts_agree, parse_totals, run_cases  # noqa: E402

PORT = 5301  # the namespaces are this test's own: any port is free there


def only_port(net, side, port):
    """The firewall: TCP and UDP into `side` only to `port`."""
    rules = f"""table inet one_port {{
  chain in {{
    type filter hook input priority 0; policy accept;
    meta l4proto tcp tcp dport != {port} counter drop
    meta l4proto udp udp dport != {port} counter drop
  }}
}}
"""
    done = subprocess.run(net.exec_args(side, ["nft", "-f", "-"]), input=rules, text=True,
                          capture_output=True, timeout=20)
    check(done.returncode == 0, f"nft refused the rule: {done.stderr}")


def dropped(net, side):
    done = subprocess.run(net.exec_args(side, ["nft", "list", "table", "inet", "one_port"]),
                          capture_output=True, text=True, timeout=20)
    words = done.stdout.split()
    return int(words[words.index("packets") + 1]) if "packets" in words else 0


def agree_and_crossed(flag, got_text, sent_text, crossed, receiving):
    gt, st = parse_totals(got_text), parse_totals(sent_text)
    check(gt["bytes"] > 0, f"{flag}: the receiving end in {receiving} counted nothing")
    check(counts_agree(gt["bytes"], st["bytes"], 0.02, 4, (gt["duration"], st["duration"])),
          f"{flag}: received {gt['bytes']} and sent {st['bytes']} bytes disagree")
    check(crossed >= gt["bytes"], f"{flag}: the veth in {receiving} received {crossed} B, less "
          f"than the {gt['bytes']} B counted: the data did not cross the veth pair")


def other_direction(text):
    """--bidir's console: the other direction's blocks, after its heading."""
    mark = "--bidir, the other direction"
    check(mark in text, "--bidir: the console does not show the other direction")
    return text[text.index(mark):]


def through_the_rule(xttcp, started, net, flag, udp=False):
    """A one-port receiver in a and a sender in b with `flag` (--one-port; --reverse: the
    receiver sends; --bidir: both): both pass, their counts agree each way, and the bytes
    crossed the veth into each receiving side."""
    # UDP: a rate the veth carries without loss, so the counts can agree.
    protocol = ["-u"] if udp else []
    rate = ["-B", "100M"] if udp else []
    r = net.start("a", [xttcp, "-r", net.ipv4("a"), "--one-port", "-p", str(PORT), "-P", "2",
                        "-t", "2", "-Q", "--wait-timeout", "60", *protocol],
                  f"one-port receiver ({flag})")
    started.append(r)
    net.wait_listening(r, PORT)
    receiving = "b" if flag == "--reverse" else "a"
    before = {side: net.link_stats(side)["stats64"]["rx"]["bytes"] for side in ("a", "b")}
    s = net.start("b", [xttcp, "-s", net.ipv4("a"), flag, "-p", str(PORT), "-P", "2", "-n", "2",
                        "-t", "2", *protocol, *rate], f"{flag} sender")
    started.append(s)
    check(s.wait(60) == 0, f"the {flag} sender failed behind the one-port firewall")
    check(r.wait(60) == 0, f"the receiver of the {flag} test failed behind the firewall")
    crossed = {side: net.link_stats(side)["stats64"]["rx"]["bytes"] - before[side]
               for side in ("a", "b")}
    got, sent = (s, r) if receiving == "b" else (r, s)
    agree_and_crossed(flag, got.stdout(), sent.stdout(), crossed[receiving], receiving)
    if flag == "--bidir":  # and from a to b, at the same time
        agree_and_crossed(flag, other_direction(s.stdout()), other_direction(r.stdout()),
                          crossed["b"], "b")


def case_firewall(xttcp, started):
    if shutil.which("nft") is None:
        raise SkipTest("no nft (Debian's nftables; scripts/install-deps.sh installs it)")
    with VethPair() as net:
        only_port(net, "a", PORT)
        through_the_rule(xttcp, started, net, "--one-port")
        # UDP: the sync on TCP PORT, every flow's datagrams to UDP PORT.
        through_the_rule(xttcp, started, net, "--one-port", udp=True)
        # --reverse: the sender in b makes every connection, the receiver in a sends on them.
        through_the_rule(xttcp, started, net, "--reverse")
        # --bidir: both at once, every connection made by the sender in b.
        through_the_rule(xttcp, started, net, "--bidir")

        # The same ends without --one-port: the firewall stops the sync (PORT - 1).
        plain = net.start("a", [xttcp, "-r", net.ipv4("a"), "-p", str(PORT), "-P", "2", "-t",
                                "2", "-Q", "--wait-timeout", "30"], "receiver without --one-port")
        started.append(plain)
        net.wait_listening(plain, PORT - 1)
        drops_before = dropped(net, "a")
        s = net.start("b", [xttcp, "-s", net.ipv4("a"), "-p", str(PORT), "-P", "2", "-t", "2",
                            "--connect-timeout", "2"], "sender without --one-port")
        started.append(s)
        check(s.wait(60) != 0, "a test without --one-port went through the one-port firewall")
        check(dropped(net, "a") > drops_before, "the firewall dropped nothing of the plain test")
        plain.kill()


if __name__ == "__main__":
    sys.exit(run_cases({"firewall": case_firewall}))
