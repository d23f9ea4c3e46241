#!/usr/bin/env python3
"""-B paces the sender by sleeping: the receiver's measured rate is within 5 % of the target,
and the sender does not burn a core to get there (its CPU time stays far below its wall time)."""
import re

from xttcp_e2e import (Process, check, free_port_block, parse_totals, run_test, wait_listening,
                       xttcp_binary)

TARGET_BPS = 800e6


def body(started):
    xttcp = xttcp_binary()
    base = free_port_block(2)
    common = ["-P", "2", "-p", str(base), "-t", "3", "-Q"]
    receiver = Process([xttcp, "-r", "127.0.0.1", *common, "--wait-timeout", "30"], "receiver")
    started.append(receiver)
    wait_listening(base - 1)
    sender = Process([xttcp, "-s", "127.0.0.1", "-n", "1", "-B", "800m", *common], "sender")
    started.append(sender)
    check(sender.wait(30) == 0, "sender failed")
    check(receiver.wait(30) == 0, "receiver failed")
    r = parse_totals(receiver.stdout())
    rate = r["bytes"] * 8 / r["duration"]
    check(abs(rate - TARGET_BPS) <= 0.05 * TARGET_BPS,
          f"paced at {rate / 1e6:.1f} Mbit/s, target {TARGET_BPS / 1e6:.0f} Mbit/s (5 %)")
    busy = float(re.search(r"cpu busy \(all\)\s*:([\d.]+)%", sender.stdout()).group(1))
    check(busy < 50.0, f"the paced sender used {busy:.1f} % of a CPU: it should sleep, not spin")


run_test(body)
