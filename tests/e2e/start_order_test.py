#!/usr/bin/env python3
"""Start order: a sync'd sender started before its receiver waits for it (a refused sync
connect is retried within --connect-timeout, like the data connects), five times back to back;
and it still gives up, naming the tries, when no receiver comes."""
from xttcp_e2e import Process, check, free_port_block, parse_totals, run_test, xttcp_binary


def body(started):
    xttcp = xttcp_binary()
    for run in range(5):
        base = free_port_block(1)
        common = ["-P", "1", "-p", str(base), "-t", "1", "-Q"]
        sender = Process([xttcp, "-s", "127.0.0.1", "-n", "1", *common], f"sender {run + 1}")
        started.append(sender)
        sender.wait_output("xttcp ")  # it runs (and is connecting) before the receiver exists
        receiver = Process([xttcp, "-r", "127.0.0.1", *common], f"receiver {run + 1}")
        started.append(receiver)
        check(sender.wait(30) == 0, f"run {run + 1}: the sender started first failed")
        check(receiver.wait(30) == 0, f"run {run + 1}: the receiver failed")
        check(parse_totals(sender.stdout())["bytes"] > 0, f"run {run + 1}: nothing was sent")

    base = free_port_block(1)
    lonely = Process([xttcp, "-s", "127.0.0.1", "-P", "1", "-n", "1", "-p", str(base), "-t", "1",
                      "--connect-timeout", "1"], "sender without a receiver")
    started.append(lonely)
    check(lonely.wait(20) == 1, "a sender without a receiver did not exit 1")
    check("refused the connection" in lonely.stderr() and "tries in 1 s, --connect-timeout"
          in lonely.stderr(), f"the error does not say it retried:\n{lonely.stderr()}")


run_test(body)
