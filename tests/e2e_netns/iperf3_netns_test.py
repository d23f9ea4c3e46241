#!/usr/bin/env python3
"""The iperf3 dialect across a veth pair between two network namespaces (netns.py), with
Debian's iperf3 3.12 at the other end: xttcp as `iperf3 -c` in namespace b against
`iperf3 -s -1 -J` in a (TCP -P 4, and -R -P 2), and a real `iperf3 -c -J` in b against xttcp as
`iperf3 -s` in a (-P 4, and -R), over IPv4; and both ends xttcp over IPv6; UDP (-u) both ways
with iperf3 3.12 (-P 4, and -R -P 2 with 64-bit counters); --bidir -P 4 both ways, TCP, and UDP
-P 2. Each test's counts agree within 2 % (TCP: or within what the streams' buffers hold when the
test stops) and its bytes crossed the veth (with --bidir, each way). Cases: client, server, ipv6,
udp, bidir.
Exits 77 when the machine cannot make the namespaces or /usr/bin/iperf3 is missing."""
import json
import subprocess
import sys

from netns import Interrupted, VethPair  # puts tests/e2e on the path
from iperf3_client_test import check_against_iperf3  # noqa: E402
from iperf3_peer_test import (IPERF3, as_iperf3, bidir_totals, check_test,  # noqa: E402
                              need_iperf3, summary_sum_bytes, totals_agree)
from xttcp_e2e import check, run_cases  # noqa: E402

PORT = 5201  # the namespaces are this test's own: any port is free there


def crossed_check(net, side, before, counted):
    crossed = net.link_stats(side)["stats64"]["rx"]["bytes"] - before
    check(crossed >= counted, f"the veth in ns {side} received {crossed} B, less than the "
          f"{counted:.0f} B counted: the data did not cross the veth pair")


def case_client(xttcp, started):
    """xttcp's client in b, iperf3 3.12's server in a."""
    need_iperf3()
    with VethPair() as net:
        for args, streams, client_sends in ((["-P", "4"], 4, True), (["-R", "-P", "2"], 2, False)):
            s = net.start("a", [IPERF3, "-s", "-1", "-J", "-B", net.ipv4("a"), "-p", str(PORT)],
                          "iperf3 -s -1 -J")
            started.append(s)
            net.wait_listening(s, PORT)
            receiving = "a" if client_sends else "b"
            before = net.link_stats(receiving)["stats64"]["rx"]["bytes"]
            c = net.start("b", [as_iperf3(xttcp), "-c", net.ipv4("a"), "-p", str(PORT), "-t", "2",
                                *args], "xttcp as iperf3 -c")
            started.append(c)
            check(c.wait(60) == 0, f"xttcp's client {args} failed:\n{c.describe()}")
            check(s.wait(60) == 0, f"iperf3 -s -1 did not exit 0:\n{s.describe()}")
            check_against_iperf3(c, json.loads(s.stdout()), streams, client_sends)
            crossed_check(net, receiving, before,
                          summary_sum_bytes(c.stdout(), "receiver"))


def case_server(xttcp, started):
    """xttcp's server in a, iperf3 3.12's client in b."""
    need_iperf3()
    with VethPair() as net:
        s = net.start("a", [as_iperf3(xttcp), "-s", "-B", net.ipv4("a"), "-p", str(PORT)],
                      "xttcp as iperf3 -s")
        started.append(s)
        net.wait_listening(s, PORT)
        for args, streams, tail in ((["-P", "4"], 4, "receiver"), (["-R"], 1, "sender")):
            receiving = "a" if tail == "receiver" else "b"
            before = net.link_stats(receiving)["stats64"]["rx"]["bytes"]
            done = subprocess.run(net.exec_args("b", [IPERF3, "-c", net.ipv4("a"), "-p", str(PORT),
                                                      "-J", "-t", "2", *args]),
                                  capture_output=True, text=True, timeout=60)
            check(done.returncode == 0, f"iperf3 -c {args} exited {done.returncode}:\n"
                  f"{done.stdout}{done.stderr}")
            doc = json.loads(done.stdout)
            check_test(doc, streams, tail, s.stdout())
            crossed_check(net, receiving, before, doc["end"]["sum_received"]["bytes"])


def case_ipv6(xttcp, started):
    """Both ends xttcp over IPv6, forward and reverse."""
    with VethPair() as net:
        s = net.start("a", [as_iperf3(xttcp), "-s", "-6", "-B", net.ipv6("a"), "-p", str(PORT)],
                      "xttcp as iperf3 -s -6")
        started.append(s)
        net.wait_listening(s, PORT, ipv6=True)
        for direction in ([], ["-R"]):
            c = net.start("b", [as_iperf3(xttcp), "-c", net.ipv6("a"), "-p", str(PORT), "-t", "2",
                                "-P", "2", *direction], "xttcp as iperf3 -c -6")
            started.append(c)
            check(c.wait(60) == 0, f"xttcp's client {direction} failed:\n{c.describe()}")
            sent = summary_sum_bytes(c.stdout(), "sender")
            received = summary_sum_bytes(c.stdout(), "receiver")
            print(f"IPv6 {direction}: sent {sent:.0f}, received {received:.0f}")
            check(sent > 0 and totals_agree(received, sent, 2),
                  f"received {received:.0f} is not within 2 % of sent {sent:.0f}")
            check(f"connected to {net.ipv6('a')} port {PORT}" in c.stdout(),
                  f"no IPv6 connection line:\n{c.stdout()}")


def case_udp(xttcp, started):
    """UDP at 20 Mbit/s per stream: xttcp's client in b against iperf3 3.12's server in a, then
    iperf3 3.12's client in b against xttcp's server in a, each -P 4 and -R -P 2."""
    need_iperf3()
    rate = ["-u", "-b", "20M", "-w", "1M", "-t", "2"]
    shapes = ((["-P", "4"], 4, True), (["-R", "-P", "2", "--udp-counters-64bit"], 2, False))
    with VethPair() as net:
        for args, streams, client_sends in shapes:
            s = net.start("a", [IPERF3, "-s", "-1", "-J", "-B", net.ipv4("a"), "-p", str(PORT)],
                          "iperf3 -s -1 -J")
            started.append(s)
            net.wait_listening(s, PORT)
            receiving = "a" if client_sends else "b"
            before = net.link_stats(receiving)["stats64"]["rx"]["bytes"]
            c = net.start("b", [as_iperf3(xttcp), "-c", net.ipv4("a"), "-p", str(PORT), *rate,
                                *args], "xttcp as iperf3 -c -u")
            started.append(c)
            check(c.wait(60) == 0, f"xttcp's client -u {args} failed:\n{c.describe()}")
            check(s.wait(60) == 0, f"iperf3 -s -1 did not exit 0:\n{s.describe()}")
            check_against_iperf3(c, json.loads(s.stdout()), streams, client_sends)
            crossed_check(net, receiving, before, summary_sum_bytes(c.stdout(), "receiver"))
        s = net.start("a", [as_iperf3(xttcp), "-s", "-B", net.ipv4("a"), "-p", str(PORT)],
                      "xttcp as iperf3 -s")
        started.append(s)
        net.wait_listening(s, PORT)
        for args, streams, client_sends in shapes:
            tail = "receiver" if client_sends else "sender"
            receiving = "a" if client_sends else "b"
            before = net.link_stats(receiving)["stats64"]["rx"]["bytes"]
            done = subprocess.run(net.exec_args("b", [IPERF3, "-c", net.ipv4("a"), "-p", str(PORT),
                                                      "-J", *rate, *args]),
                                  capture_output=True, text=True, timeout=60)
            check(done.returncode == 0, f"iperf3 -c -u {args} exited {done.returncode}:\n"
                  f"{done.stdout}{done.stderr}")
            doc = json.loads(done.stdout)
            check_test(doc, streams, tail, s.stdout())
            crossed_check(net, receiving, before, doc["end"]["sum_received"]["bytes"])


def case_bidir(xttcp, started):
    """--bidir: xttcp's client in b against iperf3 3.12's server in a, then iperf3 3.12's client
    in b against xttcp's server in a; TCP -P 4, then UDP -P 2 at 20 Mbit/s per stream. Each
    direction's counts agree, and crossed the veth its way."""
    need_iperf3()
    shapes = ((["-P", "4"], 4), (["-u", "-b", "20M", "-w", "1M", "-P", "2"], 2))
    with VethPair() as net:
        for args, streams in shapes:
            s = net.start("a", [IPERF3, "-s", "-1", "-J", "-B", net.ipv4("a"), "-p", str(PORT)],
                          "iperf3 -s -1 -J")
            started.append(s)
            net.wait_listening(s, PORT)
            before = {side: net.link_stats(side)["stats64"]["rx"]["bytes"] for side in "ab"}
            c = net.start("b", [as_iperf3(xttcp), "-c", net.ipv4("a"), "-p", str(PORT), "-t", "2",
                                "--bidir", "-J", *args], "xttcp as iperf3 -c --bidir")
            started.append(c)
            check(c.wait(60) == 0, f"xttcp's client --bidir {args} failed:\n{c.describe()}")
            check(s.wait(60) == 0, f"iperf3 -s -1 did not exit 0:\n{s.describe()}")
            to_a, to_b = bidir_totals(json.loads(c.stdout()), json.loads(s.stdout()), streams,
                                      f"xttcp to iperf3 {args}")
            crossed_check(net, "a", before["a"], to_a[1]["bytes"])
            crossed_check(net, "b", before["b"], to_b[1]["bytes"])
        s = net.start("a", [as_iperf3(xttcp), "-s", "-B", net.ipv4("a"), "-p", str(PORT)],
                      "xttcp as iperf3 -s")
        started.append(s)
        net.wait_listening(s, PORT)
        for args, streams in shapes:
            before = {side: net.link_stats(side)["stats64"]["rx"]["bytes"] for side in "ab"}
            done = subprocess.run(net.exec_args("b", [IPERF3, "-c", net.ipv4("a"), "-p", str(PORT),
                                                      "-J", "-t", "2", "--bidir", *args]),
                                  capture_output=True, text=True, timeout=60)
            check(done.returncode == 0, f"iperf3 -c --bidir {args} exited {done.returncode}:\n"
                  f"{done.stdout}{done.stderr}")
            # The client's document holds both ends' counts of both directions.
            doc = json.loads(done.stdout)
            to_a, to_b = bidir_totals(doc, doc, streams, f"iperf3 to xttcp {args}")
            crossed_check(net, "a", before["a"], to_a[1]["bytes"])
            crossed_check(net, "b", before["b"], to_b[1]["bytes"])


CASES = {"client": case_client, "server": case_server, "ipv6": case_ipv6, "udp": case_udp,
         "bidir": case_bidir}

if __name__ == "__main__":
    sys.exit(run_cases(CASES, interrupted=(Interrupted,)))
