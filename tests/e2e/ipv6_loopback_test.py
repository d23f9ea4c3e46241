#!/usr/bin/env python3
"""-6 on ::1 with sync: both ends agree on bytes."""
import socket

from xttcp_e2e import (Process, SkipTest, check, counts_agree, free_port_block, parse_totals, run_test,
                       wait_listening, xttcp_binary)


def body(started):
    try:
        s = socket.socket(socket.AF_INET6)
        s.bind(("::1", 0))
        s.close()
    except OSError as e:
        raise SkipTest(f"no IPv6 loopback here ({e})")
    xttcp = xttcp_binary()
    base = free_port_block(1, ipv6=True)
    # -W 1 -C 1: both windows inside steady traffic (see hold_mode_test.py: otherwise one
    # window holds the other's start delay as dead time).
    common = ["-6", "-P", "1", "-p", str(base), "-W", "1", "-t", "1", "-C", "1", "-Q"]
    receiver = Process([xttcp, "-r", "::1", *common, "--wait-timeout", "30"], "receiver")
    started.append(receiver)
    wait_listening(base - 1, ipv6=True)
    sender = Process([xttcp, "-s", "::1", "-n", "1", *common], "sender")
    started.append(sender)
    check(sender.wait(30) == 0, "sender failed")
    check(receiver.wait(30) == 0, "receiver failed")
    r, s_ = parse_totals(receiver.stdout()), parse_totals(sender.stdout())
    check(counts_agree(r["bytes"], s_["bytes"], 0.02, 1,
                       (r["duration"], s_["duration"])),
          f"{r['bytes']} B in {r['duration']} s vs {s_['bytes']} B in {s_['duration']} s")


run_test(body)
