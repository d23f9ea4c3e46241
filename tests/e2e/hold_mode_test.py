#!/usr/bin/env python3
"""-H: the receiver runs test after test; two senders in a row each get a full result (the
receiver's own figures of their own test, not another's), and Ctrl+C (SIGINT, by PID) ends the
receiver promptly with exit 0."""
import re
import signal

from xttcp_e2e import (Process, all_totals, check, free_port_block, parse_totals, run_test,
                       wait_listening, counts_agree, xttcp_binary)


def peer_total(console, test):
    """The receiver's total bytes as a sender printed them (its "Peer (receiver) totals")."""
    m = re.search(r"Peer \(receiver\) totals:.*?total bytes\s*:(\d+)", console, re.S)
    check(m is not None, f"sender {test} printed no 'Peer (receiver) totals' block:\n{console}")
    return int(m.group(1))


def body(started):
    xttcp = xttcp_binary()
    base = free_port_block(1)
    # A warm-up and a cool-down second put both windows inside steady traffic. The receiver's
    # window begins when it says go, the sender's when it hears it: on a loaded host the gap
    # (either way: a held start can open late) is dead time in one window only (CI's sanitizer
    # leg: 100 ms, 10 % of -t 1; 180 ms in a second test beside other tests).
    common = ["-P", "1", "-p", str(base), "-W", "1", "-t", "1", "-C", "1", "-Q"]
    receiver = Process([xttcp, "-r", "127.0.0.1", "-H", *common], "receiver")
    started.append(receiver)
    wait_listening(base - 1)
    sent, told = [], []
    for i in range(2):
        sender = Process([xttcp, "-s", "127.0.0.1", "-n", "1", *common], f"sender {i + 1}")
        started.append(sender)
        check(sender.wait(30) == 0, f"sender {i + 1} failed")
        sent.append(parse_totals(sender.stdout())["bytes"])
        told.append(peer_total(sender.stdout(), i + 1))
    receiver.signal(signal.SIGINT)
    check(receiver.wait(10) == 0, "receiver did not end cleanly on SIGINT")
    got = all_totals(receiver.stdout())
    check(len(got) == 2, f"receiver reported {len(got)} tests, expected 2")
    for i in range(2):
        # The rule under test: each sender was given the receiver's figures of its own test.
        check(told[i] == got[i],
              f"sender {i + 1} was told the receiver counted {told[i]} bytes; the receiver "
              f"printed {got[i]} for test {i + 1} (all its tests: {got})")
        # A sanity bound only: two 1 s windows on two clocks, up to ~0.2 s apart on a loaded
        # machine, in traffic whose rate moves with the load. How closely the two ends agree
        # is sync-loopback's test (whole windows, 2 %).
        check(counts_agree(got[i], sent[i], 0.25, 1),
              f"test {i + 1}: receiver {got[i]} vs sender {sent[i]}")


run_test(body)
