#!/usr/bin/env python3
"""Loopback request/response next to Debian's sockperf ping-pong, measured in one run: xttcp
--rr (per backend, one flow, one transaction in flight) and sockperf alternate, round after
round, on UDP 64 B and TCP 1 B, and the table gives transactions per second, round-trip p50
and p99, the CPU of each end per transaction, and xttcp's ratios to sockperf.

  bench/compare/rr_peers.py --xttcp build/xttcp [--seconds 5] [--rounds 3]
      [--backends epoll,io_uring] [--json FILE]
  bench/compare/rr_peers.py --xttcp build/xttcp --quick      # 1-second smoke run

Figures: xttcp's from the requester's native JSON (rr.transactions_per_s, rr.latency, the
window's); sockperf's from its client report with --full-rtt (round trips, not half of them:
the [Valid Duration] counts and its percentile lines, after its own 400 ms warm-up). sockperf's
messages are at least 14 bytes (its header), so its TCP row uses 14 where xttcp uses 1. CPU per
transaction: each process's rusage over its whole life / the transactions its report counts.
Traffic goes to 127.0.0.1 only; processes are started and stopped by PID; every wait is bounded.
"""
import argparse
import datetime
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from loopback_peers import SETTLE_S, Children, free_port, wait_listen  # noqa: E402
from udp_peers import wait_listen_udp  # noqa: E402

# protocol, xttcp size, sockperf size
WORKLOADS = {"udp64": ("udp", 64, 64), "tcp1": ("tcp", 1, 14)}


class Sample:
    def __init__(self, tps, p50_us, p99_us, client_cpu_us, server_cpu_us):
        self.tps, self.p50_us, self.p99_us = tps, p50_us, p99_us
        self.client_cpu_us, self.server_cpu_us = client_cpu_us, server_cpu_us


def run_xttcp(binary, backend, protocol, size, seconds, port, tmp):
    sjson = os.path.join(tmp, "s.json")
    if os.path.exists(sjson):
        os.remove(sjson)
    common = ["--rr", "--backend", backend, "-P", "1", "-p", port, "-t", seconds, "-Q", "-b", size]
    if protocol == "udp":
        common.append("-u")
    with Children() as children:
        server = children.start([binary, "-r", "127.0.0.1", *common, "--wait-timeout", 30])
        wait_listen(port - 1)
        client = children.start([binary, "-s", "127.0.0.1", *common, "-n", "1", "--json", sjson])
        client.wait(seconds + SETTLE_S)
        server.wait(seconds + SETTLE_S)
    with open(sjson) as f:
        rr = json.load(f)["rr"]
    n = max(rr["transactions"], 1)
    return Sample(rr["transactions_per_s"], rr["latency"]["p50_ns"] / 1000,
                  rr["latency"]["p99_ns"] / 1000, client.cpu * 1e6 / n, server.cpu * 1e6 / n)


def run_sockperf(protocol, size, seconds, port):
    tcp = ["--tcp"] if protocol == "tcp" else []
    with Children() as children:
        server = children.start(["sockperf", "server", "-i", "127.0.0.1", "-p", port, *tcp])
        (wait_listen if tcp else wait_listen_udp)(port)
        client = children.start(["sockperf", "ping-pong", "-i", "127.0.0.1", "-p", port, "-t",
                                 seconds, "-m", size, "--full-rtt", *tcp])
        client.wait(seconds + SETTLE_S)
        server.stop()
    text = re.sub(r"\x1b\[[0-9;]*m", "", client.text())
    valid = re.search(r"\[Valid Duration\] RunTime=([\d.]+) sec; SentMessages=\d+; "
                      r"ReceivedMessages=(\d+)", text)
    total = re.search(r"\[Total Run\].*ReceivedMessages=(\d+)", text)
    p50 = re.search(r"percentile 50\.000 =\s*([\d.]+)", text)
    p99 = re.search(r"percentile 99\.000 =\s*([\d.]+)", text)
    if not (valid and total and p50 and p99):
        raise RuntimeError(f"sockperf printed no report:\n{text[-600:]}")
    n = max(int(total.group(1)), 1)
    return Sample(int(valid.group(2)) / float(valid.group(1)), float(p50.group(1)),
                  float(p99.group(1)), client.cpu * 1e6 / n, server.cpu * 1e6 / n)


def cpu_model():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor()


def median(values):
    return statistics.median(values) if values else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--xttcp", required=True)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workloads", default="udp64,tcp1")
    parser.add_argument("--backends", default="epoll,io_uring")
    parser.add_argument("--json")
    parser.add_argument("--quick", action="store_true", help="1 s, 1 round: a smoke run")
    args = parser.parse_args()
    if args.quick:
        args.seconds, args.rounds = 1, 1
    if not os.path.exists("/usr/bin/sockperf"):
        print("SKIP: sockperf is not installed (scripts/install-deps.sh installs it)")
        return 77
    workloads = args.workloads.split(",")
    listed = subprocess.run([args.xttcp, "backends"], capture_output=True, text=True,
                            timeout=30).stdout.splitlines()
    available = {line.split()[0] for line in listed if line.split()[1:2] == ["available"]}
    backends = [b for b in args.backends.split(",") if b in available]
    for b in args.backends.split(","):
        if b not in available:
            print(f"note: xttcp backend {b} left out: not available here ('xttcp backends')")
    tools = [f"xttcp/{b}" for b in backends] + ["sockperf"]
    samples = {(w, tool): [] for w in workloads for tool in tools}
    with tempfile.TemporaryDirectory(prefix="xttcp-rr-bench-") as tmp:
        for round_index in range(args.rounds):
            for w in workloads:
                protocol, xsize, ssize = WORKLOADS[w]
                # Rotate which tool goes first, so drift on a shared host hits all alike.
                k = round_index % len(tools)
                for tool in tools[k:] + tools[:k]:
                    port = free_port(2)
                    if tool.startswith("xttcp/"):
                        s = run_xttcp(args.xttcp, tool.split("/")[1], protocol, xsize,
                                      args.seconds, port, tmp)
                    else:
                        s = run_sockperf(protocol, ssize, args.seconds, port)
                    samples[(w, tool)].append(s)
    rows = []
    print(f"CPU: {cpu_model()} ({os.cpu_count()} CPUs); kernel {platform.release()}; "
          f"{args.rounds} round(s) of {args.seconds} s; medians over rounds")
    print(f"{'workload':9} {'tool':14} {'trans/s':>10} {'p50 us':>8} {'p99 us':>8} "
          f"{'cli CPU-us/t':>12} {'srv CPU-us/t':>12}")
    for w in workloads:
        figures = {}
        for tool in tools:
            values = samples[(w, tool)]
            f = {k: median([getattr(s, k) for s in values])
                 for k in ("tps", "p50_us", "p99_us", "client_cpu_us", "server_cpu_us")}
            figures[tool] = f
            size = WORKLOADS[w][2 if tool == "sockperf" else 1]
            print(f"{w:9} {tool:14} {f['tps']:10.0f} {f['p50_us']:8.2f} {f['p99_us']:8.2f} "
                  f"{f['client_cpu_us']:12.2f} {f['server_cpu_us']:12.2f}   ({size} B)")
            rows.append({"workload": w, "tool": tool, "size": size, **f})
        s = figures["sockperf"]
        for tool in tools[:-1]:
            x = figures[tool]
            print(f"{w:9} {'ratio':14} {x['tps'] / s['tps']:10.2f} "
                  f"{x['p50_us'] / s['p50_us']:8.2f} {x['p99_us'] / s['p99_us']:8.2f}   "
                  f"({tool} / sockperf)")
    if args.json:
        with open(args.json, "w") as f:
            now = datetime.datetime.now(datetime.timezone.utc).isoformat()
            json.dump({"schema": 1, "date": now,
                       "cpu_model": cpu_model(), "cpus": os.cpu_count(),
                       "kernel": platform.release(), "seconds": args.seconds,
                       "rounds": args.rounds, "rows": rows}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
