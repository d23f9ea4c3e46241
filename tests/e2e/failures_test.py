#!/usr/bin/env python3
"""Run-time failures end clearly and promptly: a data port in use, a receiver nobody runs, and
a sender killed mid-test (the receiver reports it, exits 1, leaves no half-written file)."""
import os
import signal
import socket
import tempfile
import time

from xttcp_e2e import (Process, check, free_port_block, load_xml, run_test, wait_listening,
                       xttcp_binary)


def port_in_use(xttcp, started):
    base = free_port_block(2)
    blocker = socket.socket()
    blocker.bind(("127.0.0.1", base + 1))
    blocker.listen()
    try:
        receiver = Process([xttcp, "-r", "127.0.0.1", "-P", "2", "-p", str(base), "-t", "1"],
                           "receiver on a busy port")
        started.append(receiver)
        check(receiver.wait(15) == 1, "receiver on a busy port did not exit 1")
        check(str(base + 1) in receiver.stderr() and "in use" in receiver.stderr(),
              "error does not name the busy port")
    finally:
        blocker.close()


def nobody_listening(xttcp, started):
    base = free_port_block(2)
    for extra in ([], ["-N"]):
        t0 = time.monotonic()
        sender = Process([xttcp, "-s", "127.0.0.1", "-P", "2", "-n", "1", "-p", str(base), "-t",
                          "1", "--connect-timeout", "3", *extra], "sender to nobody")
        started.append(sender)
        check(sender.wait(20) == 1, f"sender to nobody ({extra}) did not exit 1")
        check("refused" in sender.stderr(), f"error does not say refused: {sender.stderr()}")
        check(time.monotonic() - t0 < 10, "sender to nobody took too long")


def sender_killed(xttcp, started):
    base = free_port_block(1)
    out = tempfile.mkdtemp(prefix="xttcp-e2e-")
    xml = os.path.join(out, "r.xml")
    common = ["-P", "1", "-p", str(base), "-t", "5", "-Q"]
    receiver = Process([xttcp, "-r", "127.0.0.1", *common, "-x", xml], "receiver")
    started.append(receiver)
    wait_listening(base - 1)
    sender = Process([xttcp, "-s", "127.0.0.1", "-n", "1", *common], "sender")
    started.append(sender)
    time.sleep(1.5)
    sender.signal(signal.SIGKILL)
    t0 = time.monotonic()
    check(receiver.wait(15) == 1, "receiver did not exit 1 after its sender died")
    check(time.monotonic() - t0 < 10, "receiver took too long to notice")
    check("sender went away" in receiver.stderr(), f"no clear error: {receiver.stderr()}")
    leftovers = [n for n in os.listdir(out) if n != "r.xml"]
    check(not leftovers, f"temporary files left behind: {leftovers}")
    if os.path.exists(xml):
        load_xml(xml, "ntttcpr")  # complete, not half-written


def body(started):
    xttcp = xttcp_binary()
    port_in_use(xttcp, started)
    nobody_listening(xttcp, started)
    sender_killed(xttcp, started)


run_test(body)
