#!/usr/bin/env python3
"""xttcp against a peer that speaks only NTTTCP-for-Linux's sync protocol (ntttcp_linux_peer.py,
written here from the reference), in both directions: the native hello must fall back silently,
the test must start and end on both sides, and the byte counts must agree."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from xttcp_e2e import (Process, check, free_port_block, parse_totals, run_test,  # noqa: E402
                       wait_listening, xttcp_binary)



def in_flight_per_connection():
    """The most one connection can hold between send() and recv(): the kernel's largest send
    buffer plus its largest receive buffer. A slow (Python) peer lets them fill."""
    def largest(name):
        with open(f"/proc/sys/net/ipv4/{name}") as f:
            return int(f.read().split()[2])
    return largest("tcp_wmem") + largest("tcp_rmem")


# The sender counts what the kernel accepted, the receiver what it read: they differ by what sits
# in socket buffers at the window edges.
IN_FLIGHT_PER_CONNECTION = in_flight_per_connection()


def agree(a, b, connections):
    return abs(a - b) <= 0.02 * max(a, b) + IN_FLIGHT_PER_CONNECTION * connections


PEER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ntttcp_linux_peer.py")


def body(started):
    xttcp = xttcp_binary()

    # xttcp sender -> legacy receiver
    base = free_port_block(2)
    legacy = Process([sys.executable, PEER, "receiver", "--port", str(base), "--ports", "2",
                      "--duration", "2"], "legacy receiver")
    started.append(legacy)
    wait_listening(base - 1)
    sender = Process([xttcp, "-s", "127.0.0.1", "-P", "2", "-n", "1", "-p", str(base), "-t", "2",
                      "-Q"], "xttcp sender")
    started.append(sender)
    check(sender.wait(30) == 0, "xttcp sender failed against a legacy receiver")
    check(legacy.wait(30) == 0, "legacy receiver failed")
    s, r = parse_totals(sender.stdout()), parse_totals(legacy.stdout())
    check(r["bytes"] > 0, "legacy receiver counted nothing")
    check(agree(s["bytes"], r["bytes"], 2), f"xttcp sent {s['bytes']}, legacy got {r['bytes']}")
    check("Peer (" not in sender.stdout(), "xttcp printed a peer block for a legacy peer")

    # legacy sender -> xttcp receiver
    base = free_port_block(2)
    receiver = Process([xttcp, "-r", "127.0.0.1", "-P", "2", "-p", str(base), "-t", "2", "-Q",
                        "--wait-timeout", "30"], "xttcp receiver")
    started.append(receiver)
    wait_listening(base - 1)
    legacy = Process([sys.executable, PEER, "sender", "--port", str(base), "--ports", "2",
                      "--duration", "2"], "legacy sender")
    started.append(legacy)
    check(legacy.wait(30) == 0, "legacy sender failed")
    check(receiver.wait(30) == 0, "xttcp receiver failed with a legacy sender")
    s, r = parse_totals(legacy.stdout()), parse_totals(receiver.stdout())
    check(r["bytes"] > 0, "xttcp receiver counted nothing")
    check(agree(s["bytes"], r["bytes"], 2), f"legacy sent {s['bytes']}, xttcp got {r['bytes']}")


if __name__ == "__main__":
    run_test(body)
