#!/usr/bin/env python3
"""xttcp as an iperf3 server next to iperf3's own (Debian's 3.12), both serving the same real
iperf3 3.12 client on loopback, in one run (issue 32).

Cells: streams (-P) x direction (forward: the client sends, the server receives; reverse: -R,
the server sends). Servers: iperf3 -s; xttcp --dialect iperf3 -s (its defaults: a receiver that
discards with MSG_TRUNC, no receive copy); xttcp ... --skip-rx-copy=off (a receiver that copies
every byte into user space, as iperf3's server does). Each server runs once per round, in
alternating order. Reported per cell and server: the client's received throughput (median over
rounds, and the rounds' range), the server's CPU seconds per GB it moved (its rusage), and the
ratio to iperf3's server. The client is iperf3 3.12 in every case, one thread for all its
streams: on a 2-CPU machine it bounds what any server can show (xttcp's own iperf3 client is
not built yet).

  bench/compare/iperf3_server.py --xttcp build/xttcp [--seconds 5] [--rounds 3]
      [--streams 1,8] [--json FILE]
  bench/compare/iperf3_server.py --xttcp build/xttcp --quick     # 1-second smoke run

Traffic goes to 127.0.0.1 only. Every process is started and stopped by PID here, and every wait
is bounded.
"""
import argparse
import json
import os
import platform
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


def run_cell(server_args, streams, reverse, seconds):
    """One test: (client received bits/s, server CPU s, bytes the server moved)."""
    port = free_port()
    server = subprocess.Popen(server_args + ["-s", "-1", "-p", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL)
    try:
        wait_listen(port, server)
        client = subprocess.run(
            [IPERF3, "-c", "127.0.0.1", "-p", str(port), "-J", "-P", str(streams),
             "-t", str(seconds)] + (["-R"] if reverse else []),
            capture_output=True, text=True, timeout=seconds + SETTLE_S)
        doc = json.loads(client.stdout)
        if "error" in doc:
            raise RuntimeError(f"the client says: {doc['error']}")
        deadline = time.monotonic() + SETTLE_S
        while server.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        if server.poll() is None:
            raise RuntimeError("the server did not exit after its one test (-1)")
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(10)
    end = doc["end"]
    received = end["sum_received"]
    moved = (end["sum_sent"] if reverse else received)["bytes"]
    # The server's own CPU, from the client's document: the remote side of the test.
    cpu_percent = end["cpu_utilization_percent"]["remote_total"]
    cpu_s = cpu_percent / 100.0 * received["seconds"]
    return received["bits_per_second"], cpu_s, moved


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--xttcp", required=True)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--streams", default="1,8")
    parser.add_argument("--json")
    parser.add_argument("--quick", action="store_true", help="1 s, 1 round, 1 and 2 streams")
    args = parser.parse_args()
    if not os.access(IPERF3, os.X_OK):
        print(f"SKIP: {IPERF3} is missing (scripts/install-deps.sh installs iperf3)")
        return 77
    if args.quick:
        args.seconds, args.rounds, args.streams = 1, 1, "1,2"
    xttcp = os.path.abspath(args.xttcp)
    servers = {
        "iperf3": [IPERF3],
        "xttcp": [xttcp, "--dialect", "iperf3"],
        "xttcp:copy": [xttcp, "--dialect", "iperf3", "--skip-rx-copy=off"],
    }
    cells = [(int(p), reverse) for p in args.streams.split(",") for reverse in (False, True)]
    results = {}
    print(f"CPU: {cpu_model()} ({os.cpu_count()} CPUs); kernel {platform.release()}; "
          f"{args.seconds} s x {args.rounds} rounds; client: iperf3 3.12 (one thread)")
    for streams, reverse in cells:
        cell = f"P{streams} {'reverse' if reverse else 'forward'}"
        runs = {name: [] for name in servers}
        for round_index in range(args.rounds):
            order = list(servers) if round_index % 2 == 0 else list(reversed(servers))
            for name in order:
                bps, cpu_s, moved = run_cell(servers[name], streams, reverse, args.seconds)
                runs[name].append((bps, cpu_s / (moved / 1e9) if moved else 0.0))
        base = statistics.median(r[0] for r in runs["iperf3"])
        results[cell] = {}
        for name, values in runs.items():
            rates = [v[0] for v in values]
            median = statistics.median(rates)
            cpu_per_gb = statistics.median(v[1] for v in values)
            results[cell][name] = {"gbps": median / 1e9, "min_gbps": min(rates) / 1e9,
                                   "max_gbps": max(rates) / 1e9,
                                   "server_cpu_s_per_gb": cpu_per_gb,
                                   "ratio_to_iperf3": median / base if base else None}
            print(f"{cell:12} {name:11} {median / 1e9:7.2f} Gbit/s "
                  f"[{min(rates) / 1e9:.2f}-{max(rates) / 1e9:.2f}]  server {cpu_per_gb:6.3f} "
                  f"CPU s/GB  x{median / base:.2f} of iperf3's server")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cpu": cpu_model(), "cpus": os.cpu_count(), "kernel": platform.release(),
                       "seconds": args.seconds, "rounds": args.rounds, "cells": results}, f,
                      indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
