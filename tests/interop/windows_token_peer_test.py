#!/usr/bin/env python3
"""xttcp's NTttcp-for-Windows dialect against a peer that speaks only the original's control
plane (ntttcp_windows_peer.py, written here from the reference): the per-thread token handshake
on data port + 1000, and -sp's port hand-out, in both directions. Both ends must start, end
with success and agree on the bytes.

  windows_token_peer_test.py XTTCP CASE   (CASE: xttcp-sender, xttcp-receiver, sp-xttcp-sender,
                                           sp-xttcp-receiver)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from xttcp_e2e import (Process, check, free_port_block, load_json, parse_totals,  # noqa: E402
                       run_cases, scratch_dir, wait_listening)

PEER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ntttcp_windows_peer.py")
THREADS = 2


def in_flight_per_connection():
    """The most one connection holds between send() and recv(): the largest send plus receive
    buffer. A slow (Python) peer lets them fill."""
    def largest(name):
        with open(f"/proc/sys/net/ipv4/{name}") as f:
            return int(f.read().split()[2])
    return largest("tcp_wmem") + largest("tcp_rmem")


def agree(a, b):
    return abs(a - b) <= 0.05 * max(a, b) + in_flight_per_connection() * THREADS


def xttcp_args(xttcp, role, base, json_path, sp):
    args = [xttcp, "--dialect", "windows", role, "-m", f"{THREADS},*,127.0.0.1", "-p", str(base),
            "-t", "2", "--json", json_path]
    return args + (["-sp"] if sp else [])


def peer_args(role, base, sp):
    args = [sys.executable, PEER, role, "--port", str(base), "--threads", str(THREADS),
            "--duration", "2"]
    return args + (["--sp"] if sp else [])


def xttcp_sender(xttcp, started, sp=False):
    base = free_port_block(THREADS + 1)
    json_path = os.path.join(scratch_dir(), "sender.json")
    peer = Process(peer_args("receiver", base, sp), "windows peer receiver")
    started.append(peer)
    wait_listening(base)  # the data port (or, with -sp, the port hand-out)
    sender = Process(xttcp_args(xttcp, "-s", base, json_path, sp), "xttcp sender")
    started.append(sender)
    check(sender.wait(40) == 0, "xttcp sender failed against the Windows peer")
    check(peer.wait(40) == 0, "Windows peer receiver failed")
    got = parse_totals(peer.stdout())["bytes"]
    sent = load_json(json_path)["summary"]["total_bytes"]
    check(got > 0, "the Windows peer received nothing")
    check(agree(sent, got), f"xttcp sent {sent}, the Windows peer got {got}")
    check(peer.stderr().count("sent X, got X") == THREADS, "tokens not exchanged on every port")


def xttcp_receiver(xttcp, started, sp=False):
    base = free_port_block(THREADS + 1)
    json_path = os.path.join(scratch_dir(), "receiver.json")
    receiver = Process(xttcp_args(xttcp, "-r", base, json_path, sp) + ["--wait-timeout", "30"],
                       "xttcp receiver")
    started.append(receiver)
    wait_listening(base + 1000 + (1 if sp else 0))  # the first token port
    peer = Process(peer_args("sender", base, sp), "windows peer sender")
    started.append(peer)
    check(peer.wait(40) == 0, "Windows peer sender failed")
    check(receiver.wait(40) == 0, "xttcp receiver failed with the Windows peer")
    sent = parse_totals(peer.stdout())["bytes"]
    got = load_json(json_path)["summary"]["total_bytes"]
    check(got > 0, "xttcp received nothing")
    check(agree(sent, got), f"the Windows peer sent {sent}, xttcp got {got}")
    check(peer.stderr().count("sent X, got X") == THREADS, "tokens not exchanged on every port")


CASES = {
    "xttcp-sender": xttcp_sender,
    "xttcp-receiver": xttcp_receiver,
    "sp-xttcp-sender": lambda xttcp, started: xttcp_sender(xttcp, started, sp=True),
    "sp-xttcp-receiver": lambda xttcp, started: xttcp_receiver(xttcp, started, sp=True),
}

sys.exit(run_cases(CASES))
