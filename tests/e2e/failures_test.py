#!/usr/bin/env python3
"""Run-time failures end clearly and promptly: a data port in use (also in --local), a receiver
nobody runs, a sender or a receiver killed mid-test, a test cut short in its warm-up; and what
must NOT end a test: another sender's busy check. Slow -B pacing still stops on time."""
import os
import re
import signal
import socket
import time

from xttcp_e2e import (scratch_dir,
                       Process, check, free_port_block, load_xml, run_test, wait_listening,
                       xttcp_binary)

# What a sender prints once its test runs (after the sync start): readiness, not a sleep.
PROGRESS = "Network activity progressing"


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
                          "1", "--connect-timeout", "1", *extra], "sender to nobody")
        started.append(sender)
        check(sender.wait(20) == 1, f"sender to nobody ({extra}) did not exit 1")
        check("refused" in sender.stderr(), f"error does not say refused: {sender.stderr()}")
        if extra:  # the data connects are retried until --connect-timeout, and say so
            check(re.search(r"not established within 1 s \(--connect-timeout\): connection "
                            r"refused, \d+ tries", sender.stderr()),
                  f"error does not say how long it retried: {sender.stderr()}")
        check(time.monotonic() - t0 < 10, "sender to nobody took too long")


def sender_killed(xttcp, started):
    base = free_port_block(1)
    out = scratch_dir("xttcp-e2e-")
    xml = os.path.join(out, "r.xml")
    common = ["-P", "1", "-p", str(base), "-t", "5", "-Q"]
    receiver = Process([xttcp, "-r", "127.0.0.1", *common, "-x", xml], "receiver")
    started.append(receiver)
    wait_listening(base - 1)
    sender = Process([xttcp, "-s", "127.0.0.1", "-n", "1", *common], "sender")
    started.append(sender)
    sender.wait_output(PROGRESS)  # the test runs: killed inside its 5 s
    sender.signal(signal.SIGKILL)
    t0 = time.monotonic()
    check(receiver.wait(15) == 1, "receiver did not exit 1 after its sender died")
    check(time.monotonic() - t0 < 10, "receiver took too long to notice")
    check("sender went away" in receiver.stderr(), f"no clear error: {receiver.stderr()}")
    leftovers = [n for n in os.listdir(out) if n != "r.xml"]
    check(not leftovers, f"temporary files left behind: {leftovers}")
    if os.path.exists(xml):
        load_xml(xml, "ntttcpr")  # complete, not half-written


def local_port_in_use(xttcp, started):
    base = free_port_block(2)
    blocker = socket.socket()
    blocker.bind(("127.0.0.1", base - 1))  # the sync port
    blocker.listen()
    try:
        local = Process([xttcp, "--local", "-P", "1", "-p", str(base), "-t", "1"], "local, busy port")
        started.append(local)
        check(local.wait(20) == 1, "--local with its sync port taken did not exit 1")
        check("in use" in local.stderr(), f"no clear error: {local.stderr()}")
    finally:
        blocker.close()


def busy_check_does_not_end_the_test(xttcp, started):
    base = free_port_block(1)
    common = ["-P", "1", "-p", str(base), "-t", "3", "-Q"]
    receiver = Process([xttcp, "-r", "127.0.0.1", *common], "receiver")
    started.append(receiver)
    wait_listening(base - 1)
    first = Process([xttcp, "-s", "127.0.0.1", "-n", "1", *common], "sender")
    started.append(first)
    first.wait_output(PROGRESS)  # its test runs: the second sender finds the receiver busy
    second = Process([xttcp, "-s", "127.0.0.1", "-n", "1", *common], "second sender")
    started.append(second)
    check(second.wait(15) == 1 and "busy" in second.stderr(), "second sender not told 'busy'")
    check(first.wait(20) == 0, "the running test's sender failed")
    check(receiver.wait(20) == 0, "the receiver ended its test when a busy check closed")
    # Not cut at ~1 s by the busy check. (The sender's window may close a few ms before the
    # receiver's timer on a loaded machine: 3.0x s then, which is not a cut.)
    duration = re.search(r"test duration\t:([0-9.]+) seconds", receiver.stdout())
    check(duration is not None and float(duration.group(1)) >= 2.9,
          "the receiver's window was cut")


def receiver_killed(xttcp, started):
    base = free_port_block(1)
    common = ["-P", "1", "-p", str(base), "-t", "5", "-Q"]
    receiver = Process([xttcp, "-r", "127.0.0.1", *common], "receiver")
    started.append(receiver)
    wait_listening(base - 1)
    sender = Process([xttcp, "-s", "127.0.0.1", "-n", "1", *common], "sender")
    started.append(sender)
    sender.wait_output(PROGRESS)  # the test runs: the receiver dies inside its 5 s
    receiver.signal(signal.SIGKILL)
    t0 = time.monotonic()
    check(sender.wait(15) == 1, "sender did not exit 1 after its receiver died")
    check(time.monotonic() - t0 < 5, "sender took too long to notice")
    check("the receiver" in sender.stderr(), f"no clear error: {sender.stderr()}")


def cancelled_in_warmup(xttcp, started):
    base = free_port_block(1)
    common = ["-P", "1", "-p", str(base), "-W", "3", "-t", "2", "-Q"]
    receiver = Process([xttcp, "-r", "127.0.0.1", *common], "receiver")
    started.append(receiver)
    wait_listening(base - 1)
    sender = Process([xttcp, "-s", "127.0.0.1", "-n", "1", *common], "sender")
    started.append(sender)
    sender.wait_output(PROGRESS)  # the 3 s warm-up has begun
    sender.signal(signal.SIGINT)  # the sender tells the receiver ('E'), then stops
    check(sender.wait(15) == 1, "sender interrupted in warm-up should exit 1 (nothing measured)")
    check(receiver.wait(15) == 1, "receiver did not end after a warm-up cut short")
    check("before its measured window" in receiver.stderr(), f"unclear: {receiver.stderr()}")


def slow_pacing_stops_in_time(xttcp, started):
    t0 = time.monotonic()
    base = free_port_block(1)
    local = Process([xttcp, "--local", "-P", "1", "-n", "1", "-p", str(base), "-t", "1", "-Q",
                     "-B", "100k"], "local, 100 kbit/s")
    started.append(local)
    check(local.wait(30) == 0, "slow paced run failed")
    check(time.monotonic() - t0 < 8, "a slow -B rate overran the test (pacer slept past stop)")


def out_of_descriptors(xttcp, started):
    """A receiver that runs out of file descriptors says so, keeps serving what it has, and
    exits 1 instead of spinning. -N: no hello tells it the connections to come (a sync sender of
    too many is refused at its hello: e2e-first-hour-pair)."""
    base = free_port_block(1)
    common = ["-P", "1", "-p", str(base), "-t", "2", "-Q", "-N"]
    receiver = Process(["bash", "-c", 'ulimit -n 40; exec "$0" "$@"', xttcp, "-r", "127.0.0.1",
                        *common, "--wait-timeout", "30"], "receiver with 40 descriptors")
    started.append(receiver)
    wait_listening(base)
    sender = Process([xttcp, "-s", "127.0.0.1", "-n", "60", *common], "sender of 60 connections")
    started.append(sender)
    sender.wait(30)
    check(receiver.wait(30) == 1, "receiver out of descriptors did not exit 1")
    check("ulimit -n" in receiver.stderr(), f"no clear error: {receiver.stderr()}")
    check("during this test a data port ran out of descriptors" in receiver.stderr(),
          f"the end does not say the test is not whole: {receiver.stderr()}")


def body(started):
    xttcp = xttcp_binary()
    port_in_use(xttcp, started)
    nobody_listening(xttcp, started)
    sender_killed(xttcp, started)
    local_port_in_use(xttcp, started)
    busy_check_does_not_end_the_test(xttcp, started)
    receiver_killed(xttcp, started)
    cancelled_in_warmup(xttcp, started)
    slow_pacing_stops_in_time(xttcp, started)
    out_of_descriptors(xttcp, started)


run_test(body)
