#!/usr/bin/env python3
"""xttcp UDP (docs/udp.md) against the NTTTCP-for-Linux peer in UDP mode (ntttcp_linux_peer.py
--udp, written here from its UDP mode's description), on loopback, 1470-byte datagrams paced at
500 Mbit/s so that loopback does not drop most of them:

  peer-self-check  legacy sender -> legacy receiver: the peer itself works (no xttcp involved)
  xttcp-receiver   legacy sender -> xttcp receiver: datagrams without xttcp's header are counted
                   as "compat", no loss from a sender count, bytes <= what the peer sent
  xttcp-sender     xttcp sender -> legacy receiver: xttcp sees an NTTTCP receiver and sends
                   compat payload (all 'B'); the peer's bytes are close to what xttcp sent

  udp_legacy_peer_test.py XTTCP [CASE ...]     none = all

Exit 0 (all run cases passed), 1 (a case failed: named on stdout), 77 (all skipped).
"""
import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from xttcp_e2e import (check, Failure, free_port_block, load_json, parse_totals, Process,  # noqa: E402
                       run_cases, scratch_dir, wait_listening)

PEER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ntttcp_linux_peer.py")
PORTS = 2
SECONDS = 2
DATAGRAM = 1470
RATE = "500M"
RATE_BPS = 500e6
TIMEOUT = 30


def wait_up(process, sync_port):
    """wait_listening, but a process that has already exited fails at once, with its output."""
    deadline = time.monotonic() + 10
    while True:
        if process.proc.poll() is not None:
            raise Failure(f"{process.name} exited ({process.proc.returncode}) before listening "
                          f"on sync port {sync_port}")
        try:
            return wait_listening(sync_port, timeout=0.1)
        except Failure:
            if time.monotonic() > deadline:
                raise


def legacy(role, base, name, extra=()):
    return Process([sys.executable, PEER, role, "--udp", "--port", str(base), "--ports",
                    str(PORTS), "--duration", str(SECONDS), *extra], name)


def peer_datagrams(console):
    """The peer's own extra line: (datagrams, datagrams that are not all 'B')."""
    m = re.search(r"udp datagrams\s*:(\d+), not all 'B'\s*:(\d+)", console)
    check(m is not None, f"legacy receiver printed no 'udp datagrams' line:\n{console}")
    return int(m.group(1)), int(m.group(2))


def case_peer_self_check(xttcp, started):
    base = free_port_block(PORTS)
    receiver = legacy("receiver", base, "legacy receiver")
    started.append(receiver)
    wait_up(receiver, base - 1)
    sender = legacy("sender", base, "legacy sender",
                    ["--size", str(DATAGRAM), "--rate", str(RATE_BPS)])
    started.append(sender)
    check(sender.wait(TIMEOUT) == 0, "legacy sender failed")
    check(receiver.wait(TIMEOUT) == 0, "legacy receiver failed")
    s, r = parse_totals(sender.stdout()), parse_totals(receiver.stdout())
    datagrams, not_compat = peer_datagrams(receiver.stdout())
    check(0 < r["bytes"] <= s["bytes"], f"peer received {r['bytes']} of {s['bytes']} bytes")
    check(datagrams * DATAGRAM == r["bytes"], "peer's datagram count does not match its bytes")
    check(not_compat == 0, f"{not_compat} datagrams from the legacy sender are not all 'B'")


def case_xttcp_receiver(xttcp, started):
    base = free_port_block(PORTS)
    json_path = os.path.join(scratch_dir("xttcp-interop-"), "r.json")
    receiver = Process([xttcp, "-r", "127.0.0.1", "-u", "-P", str(PORTS), "-p", str(base),
                        "-t", str(SECONDS), "-Q", "--json", json_path, "--wait-timeout", "30"],
                       "xttcp receiver")
    started.append(receiver)
    wait_up(receiver, base - 1)
    sender = legacy("sender", base, "legacy sender",
                    ["--size", str(DATAGRAM), "--rate", str(RATE_BPS)])
    started.append(sender)
    check(sender.wait(TIMEOUT) == 0, "legacy sender failed")
    check(receiver.wait(TIMEOUT) == 0, "xttcp receiver failed with a legacy UDP sender")
    s, r = parse_totals(sender.stdout()), parse_totals(receiver.stdout())
    check(r["bytes"] > 0, "xttcp receiver counted nothing")
    check(r["bytes"] <= s["bytes"], f"xttcp received {r['bytes']} B, more than the legacy "
          f"sender's {s['bytes']} B")
    check("Peer (" not in receiver.stdout(), "xttcp printed a peer block for a legacy peer")
    udp = load_json(json_path).get("udp")
    check(udp is not None, "xttcp receiver's native JSON has no 'udp' object")
    check(udp.get("payload") == "compat",
          f"udp.payload {udp.get('payload')!r}: datagrams of 'B' have no xttcp header")
    run = udp.get("run", {})
    # NTTTCP's payload has no sequence numbers and its sender no count: no loss figure at all.
    check(run.get("loss_source") == "none" and run.get("lost") == 0,
          f"udp.run.loss_source {run.get('loss_source')!r}, lost {run.get('lost')!r}: "
          "a legacy sender gives nothing to count loss from")
    check(run.get("received", 0) > 0, "udp.run.received is 0")


def case_xttcp_sender(xttcp, started):
    base = free_port_block(PORTS)
    json_path = os.path.join(scratch_dir("xttcp-interop-"), "s.json")
    receiver = legacy("receiver", base, "legacy receiver")
    started.append(receiver)
    wait_up(receiver, base - 1)
    sender = Process([xttcp, "-s", "127.0.0.1", "-u", "-P", str(PORTS), "-n", "1", "-p",
                      str(base), "-t", str(SECONDS), "-b", str(DATAGRAM), "-B", RATE, "-Q",
                      "--json", json_path], "xttcp sender")
    started.append(sender)
    check(sender.wait(TIMEOUT) == 0, "xttcp sender failed against a legacy UDP receiver")
    check(receiver.wait(TIMEOUT) == 0, "legacy receiver failed")
    s, r = parse_totals(sender.stdout()), parse_totals(receiver.stdout())
    datagrams, not_compat = peer_datagrams(receiver.stdout())
    check(not_compat == 0, f"{not_compat} of {datagrams} datagrams were not all 'B': xttcp "
          "sent its native header to an NTTTCP receiver")
    check(r["bytes"] > 0, "legacy receiver counted nothing")
    # Loopback and a Python reader may drop some; both windows are SECONDS long and start at
    # the sync 'R', so the peer cannot count much more than xttcp sent.
    check(0.5 * s["bytes"] <= r["bytes"] <= 1.02 * s["bytes"] + RATE_BPS / 8 * 0.05,
          f"xttcp sent {s['bytes']} B, legacy receiver got {r['bytes']} B")
    check("Peer (" not in sender.stdout(), "xttcp printed a peer block for a legacy peer")
    udp = load_json(json_path).get("udp")
    check(udp is not None, "xttcp sender's native JSON has no 'udp' object")
    check(udp.get("payload") == "compat",
          f"udp.payload {udp.get('payload')!r} to an NTTTCP receiver (auto must pick compat)")
    check(udp.get("datagram_size") == DATAGRAM, f"udp.datagram_size {udp.get('datagram_size')}")


CASES = {
    "peer-self-check": case_peer_self_check,
    "xttcp-receiver": case_xttcp_receiver,
    "xttcp-sender": case_xttcp_sender,
}


if __name__ == "__main__":
    sys.exit(run_cases(CASES))
