#!/usr/bin/env python3
"""xttcp at either end of an iperf3 test, next to Debian's iperf3 3.12 at both, on loopback, in
one run (issue 32).

Cells: streams (-P) x direction (forward: the client sends; reverse: -R, the server sends).
Pairs (client -> server), each run once per round, in alternating order:
  iperf3 -> iperf3             what users have: 3.12 runs all its streams on one thread
  iperf3 -> xttcp              xttcp as iperf3 -s (no receive copy: MSG_TRUNC)
  iperf3 -> xttcp:copy         ... copying every byte into user space, as iperf3 does
  xttcp -> iperf3              xttcp as iperf3 -c against 3.12's server
  xttcp -> xttcp               both ends xttcp, iperf3's protocol (no receive copy)
  xttcp:copy -> xttcp:copy     both ends xttcp, receiving with a copy: iperf3's work
Reported per cell and pair: the throughput the client printed for the receiver (its summary's
receiver row; median over rounds, and the rounds' range), each end's CPU seconds per GB moved
(its rusage), and the ratio to iperf3 -> iperf3.

  bench/compare/iperf3_ends.py --xttcp build/xttcp [--seconds 5] [--rounds 3] [--streams 1,8]
      [--pairs iperf3-iperf3,xttcp-xttcp,...] [--json FILE]
  bench/compare/iperf3_ends.py --xttcp build/xttcp --quick     # 1-second smoke run

Traffic goes to 127.0.0.1 only. Every process is started and stopped by PID here, and every wait
is bounded.
"""
import argparse
import json
import os
import platform
import resource
import socket
import statistics
import subprocess
import sys
import time

IPERF3 = "/usr/bin/iperf3"
SETTLE_S = 30  # bound on a run beyond its duration


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listen(port, proc, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited before it listened ({proc.returncode})")
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            with open(table) as f:
                for line in f.readlines()[1:]:
                    fields = line.split()
                    if fields[3] == "0A" and int(fields[1].split(":")[1], 16) == port:
                        return
        time.sleep(0.02)
    raise RuntimeError(f"nothing listens on {port}")


UNITS = {"bits/sec": 1, "Kbits/sec": 1e3, "Mbits/sec": 1e6, "Gbits/sec": 1e9,
         "Tbits/sec": 1e12}


def receiver_bps(text):
    """The receiver's rate from an iperf3 client's summary (3.12's or xttcp's: the same rows):
    [SUM] with several streams, else the stream's."""
    rows = [line for line in text.splitlines() if line.rstrip().endswith("receiver")]
    if not rows:
        raise RuntimeError(f"no receiver row in the client's output:\n{text}")
    words = rows[-1].split()
    for k, word in enumerate(words):
        if word in UNITS:
            return float(words[k - 1]) * UNITS[word]
    raise RuntimeError(f"unreadable row {rows[-1]!r}")


def wait_rusage(proc, timeout):
    """Waits for `proc` (bounded) and returns its CPU seconds (user + system)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid == proc.pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return usage.ru_utime + usage.ru_stime
        time.sleep(0.02)
    proc.kill()
    proc.wait(10)
    raise RuntimeError(f"{proc.args[0]} did not end within {timeout} s")


def run_cell(client_args, server_args, streams, reverse, seconds):
    """One test: (receiver bits/s, client CPU s, server CPU s)."""
    port = free_port()
    server = subprocess.Popen(server_args + ["-s", "-1", "-B", "127.0.0.1", "-p", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              stdin=subprocess.DEVNULL)
    client = None
    try:
        wait_listen(port, server)
        client = subprocess.Popen(
            client_args + ["-c", "127.0.0.1", "-p", str(port), "-P", str(streams),
                           "-t", str(seconds)] + (["-R"] if reverse else []),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        out, err = client.communicate(timeout=seconds + SETTLE_S)
        # communicate() reaped the client (and no other child meanwhile): its CPU is what the
        # reaped children's grew by.
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        client_cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if client.returncode != 0:
            raise RuntimeError(f"the client failed ({client.returncode}): {err.strip()}")
        server_cpu = wait_rusage(server, SETTLE_S)
    finally:
        for proc in (client, server):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait(10)
    return receiver_bps(out), client_cpu, server_cpu


PAIRS = ["iperf3-iperf3", "iperf3-xttcp", "iperf3-xttcp:copy", "xttcp-iperf3", "xttcp-xttcp",
         "xttcp:copy-xttcp:copy"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--xttcp", required=True)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--streams", default="1,8")
    parser.add_argument("--pairs", default=",".join(PAIRS),
                        help="CLIENT-SERVER pairs, each of iperf3, xttcp, xttcp:copy")
    parser.add_argument("--json")
    parser.add_argument("--quick", action="store_true", help="1 s, 1 round, 1 and 2 streams")
    args = parser.parse_args()
    if not os.access(IPERF3, os.X_OK):
        print(f"SKIP: {IPERF3} is missing (scripts/install-deps.sh installs iperf3)")
        return 77
    if args.quick:
        args.seconds, args.rounds, args.streams = 1, 1, "1,2"
    xttcp = os.path.abspath(args.xttcp)
    ends = {
        "iperf3": [IPERF3],
        "xttcp": [xttcp, "--dialect", "iperf3"],
        "xttcp:copy": [xttcp, "--dialect", "iperf3", "--skip-rx-copy=off"],
    }
    pairs = args.pairs.split(",")
    for pair in pairs:
        client, _, server = pair.partition("-")
        if client not in ends or server not in ends:
            print(f"--pairs: '{pair}' is not CLIENT-SERVER of iperf3, xttcp, xttcp:copy",
                  file=sys.stderr)
            return 2
    if "iperf3-iperf3" not in pairs:
        pairs.insert(0, "iperf3-iperf3")  # the base of every ratio
    cells = [(int(p), reverse) for p in args.streams.split(",") for reverse in (False, True)]
    results = {}
    print(f"CPU: {cpu_model()} ({os.cpu_count()} CPUs); kernel {platform.release()}; "
          f"{args.seconds} s x {args.rounds} rounds")
    for streams, reverse in cells:
        cell = f"P{streams} {'reverse' if reverse else 'forward'}"
        runs = {pair: [] for pair in pairs}
        for round_index in range(args.rounds):
            order = pairs if round_index % 2 == 0 else list(reversed(pairs))
            for pair in order:
                client, _, server = pair.partition("-")
                bps, client_cpu, server_cpu = run_cell(ends[client], ends[server], streams,
                                                       reverse, args.seconds)
                gb = bps / 8 * args.seconds / 1e9
                runs[pair].append((bps, client_cpu / gb if gb else 0.0,
                                   server_cpu / gb if gb else 0.0))
        base = statistics.median(r[0] for r in runs["iperf3-iperf3"])
        results[cell] = {}
        for pair, values in runs.items():
            rates = [v[0] for v in values]
            median = statistics.median(rates)
            client_cpu = statistics.median(v[1] for v in values)
            server_cpu = statistics.median(v[2] for v in values)
            results[cell][pair] = {"gbps": median / 1e9, "min_gbps": min(rates) / 1e9,
                                   "max_gbps": max(rates) / 1e9,
                                   "client_cpu_s_per_gb": client_cpu,
                                   "server_cpu_s_per_gb": server_cpu,
                                   "ratio_to_iperf3": median / base if base else None}
            print(f"{cell:12} {pair.replace('-', ' -> '):26} {median / 1e9:7.2f} Gbit/s "
                  f"[{min(rates) / 1e9:.2f}-{max(rates) / 1e9:.2f}]  CPU s/GB client "
                  f"{client_cpu:5.3f} server {server_cpu:5.3f}  x{median / base:.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cpu": cpu_model(), "cpus": os.cpu_count(), "kernel": platform.release(),
                       "seconds": args.seconds, "rounds": args.rounds, "cells": results}, f,
                      indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
