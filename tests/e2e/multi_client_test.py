#!/usr/bin/env python3
"""-M on the receiver, two senders: the first parks ('W'), the -L sender releases both; the
receiver's total is the sum of both senders' totals."""
import time

from xttcp_e2e import (Process, check, free_port_block, parse_totals, run_test, wait_listening,
                       counts_agree, xttcp_binary)


def body(started):
    xttcp = xttcp_binary()
    base = free_port_block(2)
    common = ["-P", "2", "-p", str(base), "-t", "2", "-Q"]
    receiver = Process([xttcp, "-r", "127.0.0.1", "-M", *common, "--wait-timeout", "30"],
                       "receiver")
    started.append(receiver)
    wait_listening(base - 1)
    first = Process([xttcp, "-s", "127.0.0.1", "-n", "1", *common], "first sender")
    started.append(first)
    deadline = time.monotonic() + 15
    while "INFO: waiting for the last client to join the test" not in first.stdout():
        check(time.monotonic() < deadline, "first sender never parked")
        check(first.proc.poll() is None, "first sender ended early")
        time.sleep(0.05)
    last = Process([xttcp, "-s", "127.0.0.1", "-L", "-n", "1", *common], "last sender")
    started.append(last)
    for p in (last, first, receiver):
        check(p.wait(40) == 0, f"{p.name} failed")
    r = parse_totals(receiver.stdout())["bytes"]
    a = parse_totals(first.stdout())["bytes"]
    b = parse_totals(last.stdout())["bytes"]
    check(a > 0 and b > 0, "a sender moved nothing")
    check(counts_agree(r, a + b, 0.03, 4),
          f"receiver {r} != senders {a} + {b} (beyond 3 % and what can be in flight)")


run_test(body)
