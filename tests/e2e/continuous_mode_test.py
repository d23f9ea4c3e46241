#!/usr/bin/env python3
"""-t 0: continuous mode runs until Ctrl+C (SIGINT, by PID), prints real-time lines and no
results, and ends with exit 0 on both roles."""
import signal
import time

from xttcp_e2e import Process, check, free_port_block, run_test, wait_listening, xttcp_binary


def body(started):
    xttcp = xttcp_binary()
    base = free_port_block(1)
    common = ["-P", "1", "-p", str(base), "-t", "0"]
    receiver = Process([xttcp, "-r", "127.0.0.1", *common, "-Q"], "receiver")
    started.append(receiver)
    wait_listening(base - 1)
    sender = Process([xttcp, "-s", "127.0.0.1", "-n", "1", *common], "sender")
    started.append(sender)
    time.sleep(2.0)
    check(sender.proc.poll() is None and receiver.proc.poll() is None, "a continuous run ended")
    sender.signal(signal.SIGINT)
    check(sender.wait(10) == 0, "sender did not end cleanly on SIGINT")
    receiver.signal(signal.SIGINT)
    check(receiver.wait(10) == 0, "receiver did not end cleanly on SIGINT")
    check("Real-time throughput" in sender.stdout(), "no real-time lines in continuous mode")
    for p in (sender, receiver):
        check("Totals" not in p.stdout(), f"{p.name} printed results in continuous mode")


run_test(body)
