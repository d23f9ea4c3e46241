#!/usr/bin/env python3
"""--rr request/response on loopback (docs/rr.md), per backend that runs it, TCP and UDP: the
requester completes transactions on every flow, its round-trip percentiles are ordered and its
histogram holds exactly the window's round trips, the responder's transaction count agrees with
the requester's, and a responder that holds every answer (--rr-delay-us) moves p50 to at least
that delay. A backend without --rr (null) refuses it with one line (exit 2)."""
import os
import re
import subprocess
import sys

from xttcp_e2e import (Process, check, free_port_block, load_json, run_cases, scratch_dir,
                       socket_backends, wait_listening)

DELAY_US = 20000
ORDER = ["p50_ns", "p90_ns", "p99_ns", "p99_9_ns", "p99_99_ns", "max_ns"]


def kernel_keeps_time_with_tsc():
    """The requester times with the TSC exactly when the kernel does (x86-64 Linux)."""
    try:
        with open("/sys/devices/system/clocksource/clocksource0/current_clocksource") as f:
            return f.read().strip() == "tsc" and os.uname().machine == "x86_64"
    except OSError:
        return False


def rr_pair(xttcp, started, backend, udp, depth=1, delay_us=0, busy_poll_us=0):
    base = free_port_block(2)
    d = scratch_dir()
    common = ["--rr", "--backend", backend, "-P", "1", "-p", str(base), "-t", "2"]
    if busy_poll_us:
        common.append(f"--busy-poll={busy_poll_us}")
    if udp:
        common.append("-u")
    receiver = Process([xttcp, "-r", "127.0.0.1", *common, "--rr-delay-us", str(delay_us),
                        "--json", os.path.join(d, "r.json"), "--wait-timeout", "20"],
                       f"{backend} rr responder")
    started.append(receiver)
    wait_listening(base - 1)
    sender = Process([xttcp, "-s", "127.0.0.1", *common, "-n", "2", "--rr-depth", str(depth),
                      "--json", os.path.join(d, "s.json")], f"{backend} rr requester")
    started.append(sender)
    check(sender.wait(30) == 0, f"requester failed:\n{sender.stdout()}\n{sender.stderr()}")
    check(receiver.wait(30) == 0, f"responder failed:\n{receiver.stdout()}\n{receiver.stderr()}")
    s, r = load_json(os.path.join(d, "s.json")), load_json(os.path.join(d, "r.json"))
    rr, peer = s["rr"], r["rr"]
    check(rr["transactions"] > 0, f"no transactions: {rr}")
    check(rr["depth"] == depth and rr["request_bytes"] == rr["response_bytes"] == 64,
          f"sizes or depth: {rr}")
    check(len(rr["flows"]) == 2 and all(f["transactions"] > 0 for f in rr["flows"]),
          f"a flow made no transactions: {rr['flows']}")
    check(sum(f["transactions"] for f in rr["flows"]) == rr["transactions"], "flows != total")
    latency = rr["latency"]
    figures = [latency[k] for k in ORDER]
    check(0 < figures[0] and figures == sorted(figures), f"percentiles not ordered: {latency}")
    buckets = rr["histogram"]["buckets"]
    check(sum(count for _, count in buckets) == latency["count"], "histogram != latency count")
    check(rr["cpu_us_per_transaction"] > 0, f"cpu per transaction: {rr}")
    # Two windows with their own edges: they agree to within what those edges cut differently.
    check(peer["transactions"] > 0, f"the responder answered nothing: {peer}")
    check(abs(peer["transactions"] - rr["transactions"]) <= 0.25 * rr["transactions"],
          f"responder {peer['transactions']} vs requester {rr['transactions']} transactions")
    check("latency" not in peer and "clock" not in peer, "a responder has no round trips of its own")
    check(rr["clock"].startswith("TSC," if kernel_keeps_time_with_tsc() else "CLOCK_MONOTONIC"),
          f"round trips timed with {rr['clock']!r}")
    check(s["peer"]["rr"]["transactions"] == peer["transactions"], "the requester lacks the peer's")
    check("rr round trip" in sender.stdout() and "rr transactions" in receiver.stdout(),
          f"console lacks the rr block:\n{sender.stdout()}")
    if delay_us:
        check(latency["p50_ns"] >= delay_us * 1000,
              f"p50 {latency['p50_ns']} ns with answers held {delay_us} us")
    if busy_poll_us:
        check_busy_poll(s, r, backend, busy_poll_us)
    return rr


def kernel_at_least(major, minor):
    found = re.match(r"(\d+)\.(\d+)", os.uname().release)
    return found is not None and (int(found[1]), int(found[2])) >= (major, minor)


def check_busy_poll(requester, responder, backend, us):
    """--busy-poll reached the sockets (SO_BUSY_POLL, read back) and, on io_uring, the ring
    (IORING_REGISTER_NAPI from Linux 6.9; before, a note says why not)."""
    notes = requester["notes"]
    check(any(f"SO_BUSY_POLL {us} us" in n for n in notes),
          f"{backend}: the requester's notes do not say its sockets busy-poll: {notes}")
    if backend == "io_uring":
        for role, result in (("requester", requester), ("responder", responder)):
            napi = [n for n in result["notes"] if "io_uring NAPI busy poll" in n]
            want = f"io_uring NAPI busy poll {us} us" if kernel_at_least(6, 9) else "not available"
            check(napi and want in napi[0], f"{backend} {role}: NAPI note {napi}, want {want!r}")


def refused(xttcp, backend):
    done = subprocess.run([xttcp, "-s", "127.0.0.1", "--rr", "--backend", backend, "-t", "1"],
                          capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL)
    check(done.returncode == 2, f"{backend}: --rr exit {done.returncode}, expected 2")
    check(len(done.stderr.splitlines()) == 1 and "--rr" in done.stderr,
          f"{backend}: expected one line naming --rr:\n{done.stderr}")


def each_backend(xttcp, started, **kwargs):
    for backend in socket_backends(xttcp):  # epoll, and io_uring where the kernel has it
        rr_pair(xttcp, started, backend, **kwargs)


CASES = {
    "tcp": lambda x, s: each_backend(x, s, udp=False),
    "udp": lambda x, s: each_backend(x, s, udp=True),
    "tcp-depth": lambda x, s: each_backend(x, s, udp=False, depth=8),
    "udp-depth": lambda x, s: each_backend(x, s, udp=True, depth=8),
    "tcp-delay": lambda x, s: each_backend(x, s, udp=False, delay_us=DELAY_US),
    "udp-delay": lambda x, s: each_backend(x, s, udp=True, delay_us=DELAY_US),
    "tcp-busy-poll": lambda x, s: each_backend(x, s, udp=False, busy_poll_us=50),
    "udp-busy-poll": lambda x, s: each_backend(x, s, udp=True, busy_poll_us=50),
    "refused": lambda x, s: refused(x, "null"),
}

sys.exit(run_cases(CASES))
