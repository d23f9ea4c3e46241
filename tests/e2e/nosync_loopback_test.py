#!/usr/bin/env python3
"""-N: no sync connection; the receiver's clock starts at the first data connection and each side
times its own window. Both ends agree on bytes within what is in flight. With no sync to order
them, the sender may come first: its refused connects are retried until the receiver listens
(on every kernel-socket backend through the tests/e2e_backends variants)."""
import time

from xttcp_e2e import (Process, check, counts_agree, free_port_block, parse_totals, run_test, wait_listening,
                       xttcp_binary)


def receiver_first(xttcp, started):
    base = free_port_block(2)
    common = ["-N", "-P", "2", "-p", str(base), "-t", "2", "-Q"]
    receiver = Process([xttcp, "-r", "127.0.0.1", *common, "--wait-timeout", "30"], "receiver")
    started.append(receiver)
    wait_listening(base + 1)
    sender = Process([xttcp, "-s", "127.0.0.1", "-n", "1", *common], "sender")
    started.append(sender)
    check(sender.wait(40) == 0, "sender failed")
    check(receiver.wait(40) == 0, "receiver failed")
    check("Starting sender activity (no sync) ..." in sender.stdout(), "no-sync line missing")
    r = parse_totals(receiver.stdout())
    s = parse_totals(sender.stdout())
    check(r["bytes"] > 0, "receiver counted nothing")
    check(counts_agree(r["bytes"], s["bytes"], 0.05, 2),
          f"receiver {r['bytes']} vs sender {s['bytes']}: more than 5 % apart")
    check(not receiver.stdout().count("Sync connection"), "receiver opened a sync port with -N")


def sender_first(xttcp, started):
    """The sender starts 1 s before its receiver: its connects are refused ~10 times each, and
    it still runs the test once the receiver listens."""
    base = free_port_block(2)
    common = ["-N", "-P", "2", "-p", str(base), "-t", "1", "-Q"]
    sender = Process([xttcp, "-s", "127.0.0.1", "-n", "1", *common], "sender")
    started.append(sender)
    time.sleep(1)
    check(sender.proc.poll() is None,
          f"sender gave up before its connect timeout: {sender.stderr()}")
    receiver = Process([xttcp, "-r", "127.0.0.1", *common, "--wait-timeout", "30"], "receiver")
    started.append(receiver)
    check(sender.wait(40) == 0, f"sender started first failed: {sender.stderr()}")
    check(receiver.wait(40) == 0, f"its receiver failed: {receiver.stderr()}")
    check(parse_totals(receiver.stdout())["bytes"] > 0, "receiver counted nothing")


def body(started):
    xttcp = xttcp_binary()
    receiver_first(xttcp, started)
    sender_first(xttcp, started)


run_test(body)
