#!/usr/bin/env python3
"""One end on io_uring, the other on epoll (both directions), then io_uring options that only it
has: --zerocopy (sends, notifications and copies reported in the native JSON; loopback always
copies), --zerocopy=auto (falls back to plain send, says so) and --skip-rx-copy (MSG_TRUNC: the
receiver still counts every byte). Byte counts of both ends agree within 2 %."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from xttcp_e2e import (scratch_dir,  # noqa: E402
                       Process, SkipTest, check, counts_agree, free_port_block, load_json,  # noqa: E402
                       parse_totals, run_test, wait_listening, xttcp_binary)


def uring_available(xttcp):
    table = subprocess.run([xttcp, "backends"], capture_output=True, text=True, timeout=30).stdout
    for line in table.splitlines():
        fields = line.split()
        if fields[:1] == ["io_uring"]:
            return fields[1] == "available", line
    return False, "io_uring not compiled in"


def pair(started, out, name, receiver_args, sender_args):
    """Runs a receiver and a sender with sync on loopback; returns both consoles' totals and the
    sender's native JSON."""
    xttcp = xttcp_binary()
    base = free_port_block(2)
    common = ["-P", "2", "-p", str(base), "-t", "2", "-Q"]
    sender_json = os.path.join(out, name + ".sender.json")
    receiver = Process([xttcp, "-r", "127.0.0.1", *common, "--wait-timeout", "30",
                        *receiver_args], name + " receiver")
    started.append(receiver)
    wait_listening(base - 1)
    sender = Process([xttcp, "-s", "127.0.0.1", "-n", "1", *common, "--json", sender_json,
                      *sender_args], name + " sender")
    started.append(sender)
    check(sender.wait(40) == 0, f"{name}: sender failed")
    check(receiver.wait(40) == 0, f"{name}: receiver failed")
    r = parse_totals(receiver.stdout())
    s = parse_totals(sender.stdout())
    check(r["bytes"] > 0 and s["bytes"] > 0, f"{name}: no bytes moved")
    check(counts_agree(r["bytes"], s["bytes"], 0.02, 2, (r["duration"], s["duration"])),
          f"{name}: receiver {r['bytes']} and sender {s['bytes']} differ by more than 2 %")
    return r, s, load_json(sender_json), sender.stdout()


def body(started):
    xttcp = xttcp_binary()
    available, why = uring_available(xttcp)
    if not available:
        raise SkipTest(f"io_uring backend not available: {why}")
    out = scratch_dir("xttcp-e2e-uring-")
    uring, epoll = ["--backend", "io_uring"], ["--backend", "epoll"]

    _, _, doc, _ = pair(started, out, "uring-to-epoll", epoll, uring)
    check(doc["backend"] == "io_uring", f"sender backend {doc['backend']}")
    check(doc.get("peer", {}).get("backend") == "epoll", "the receiver's result lacks its backend")
    _, _, doc, _ = pair(started, out, "epoll-to-uring", uring, epoll)
    check(doc.get("peer", {}).get("backend") == "io_uring", "receiver backend is not io_uring")

    # --zerocopy: every SEND_ZC gets a notification; on loopback the kernel copies anyway.
    _, _, doc, console = pair(started, out, "zerocopy", uring, [*uring, "--zerocopy"])
    z = doc.get("zerocopy")
    check(z is not None, "native JSON lacks the top-level 'zerocopy' object")
    check(z["sends"] > 0 and z["notifications"] > 0, f"no zero-copy sends counted: {z}")
    check(z["copied"] > 0, f"loopback copies every zero-copy send, none counted: {z}")
    check(not z["fell_back"], "--zerocopy=on must not fall back")
    check("zerocopy sends" in console, "console lacks the zero-copy line")

    # --zerocopy=auto: loopback copies (nearly) everything, so the sender falls back and says so.
    _, _, doc, console = pair(started, out, "zerocopy-auto", uring, [*uring, "--zerocopy=auto"])
    check(doc["zerocopy"]["fell_back"], f"--zerocopy=auto did not fall back: {doc['zerocopy']}")
    check("switched to plain send" in console, "console lacks the fallback note")

    # --skip-rx-copy: MSG_TRUNC discards in the kernel; the count must still match the sender.
    pair(started, out, "skip-rx-copy", [*uring, "--skip-rx-copy"], uring)


run_test(body)
